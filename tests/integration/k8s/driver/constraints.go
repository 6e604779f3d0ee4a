package main

// Kubernetes scheduling constraints through the real API: a gang with one pod per node
// (required anti-affinity on the hostname), a job spread over zones (DoNotSchedule), a pod
// whose WaitForFirstConsumer claim has one local PV (bound to that PV's node, the PV's
// claimRef written as kube-scheduler's volume binder writes it) and a pod whose claim is to
// be provisioned (the claim's selected-node annotation).

import (
	"context"
	"fmt"
	"time"
)

func testConstraints(e *Env) error {
	ns := "constraints"
	nodes := []string{"c-n1", "c-n2", "c-n3", "c-n4"}
	zone := map[string]string{"c-n1": "a", "c-n2": "a", "c-n3": "b", "c-n4": "b"}
	defer cleanup(e, ns, nodes, nil)
	defer func() {
		e.Delete(fmt.Sprintf("/api/v1/namespaces/%s/persistentvolumeclaims/data", ns))
		e.Delete(fmt.Sprintf("/api/v1/namespaces/%s/persistentvolumeclaims/scratch", ns))
		e.Delete("/api/v1/persistentvolumes/local-pv-c-n3")
		e.Delete("/apis/storage.k8s.io/v1/storageclasses/local-wffc")
		e.Delete("/apis/storage.k8s.io/v1/storageclasses/fake-wffc")
		for _, n := range nodes {
			e.Delete("/apis/storage.k8s.io/v1/csinodes/" + n)
		}
	}()
	e.Namespace(ns)
	for _, n := range nodes {
		labels := map[string]string{"test": "constraints", "topology.kubernetes.io/zone": zone[n],
			"kubernetes.io/hostname": n}
		if err := e.Create("/api/v1/nodes", Node(n, "4", "16Gi", labels)); err != nil {
			return err
		}
		// The CSI driver of the provisioned claim, on every node: Volcano counts a claim of
		// its class as one attachable-volumes-csi-fake.csi.example.com, which the CSINode offers.
		if err := e.Create("/apis/storage.k8s.io/v1/csinodes", map[string]any{
			"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
			"metadata": map[string]any{"name": n},
			"spec": map[string]any{"drivers": []any{map[string]any{
				"name": "fake.csi.example.com", "nodeID": n, "allocatable": map[string]any{"count": 5}}}},
		}); err != nil {
			return err
		}
	}
	storage := []struct {
		path string
		obj  map[string]any
	}{
		{"/apis/storage.k8s.io/v1/storageclasses", map[string]any{
			"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
			"metadata":    map[string]any{"name": "local-wffc"},
			"provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}},
		{"/apis/storage.k8s.io/v1/storageclasses", map[string]any{
			"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
			"metadata":    map[string]any{"name": "fake-wffc"},
			"provisioner": "fake.csi.example.com", "volumeBindingMode": "WaitForFirstConsumer"}},
		{"/api/v1/persistentvolumes", map[string]any{
			"apiVersion": "v1", "kind": "PersistentVolume",
			"metadata": map[string]any{"name": "local-pv-c-n3"},
			"spec": map[string]any{
				"capacity": map[string]any{"storage": "10Gi"}, "accessModes": []any{"ReadWriteOnce"},
				"storageClassName": "local-wffc", "local": map[string]any{"path": "/mnt/disk1"},
				"nodeAffinity": map[string]any{"required": map[string]any{"nodeSelectorTerms": []any{
					map[string]any{"matchExpressions": []any{map[string]any{
						"key": "kubernetes.io/hostname", "operator": "In", "values": []any{"c-n3"}}}}}}}}}},
		{fmt.Sprintf("/api/v1/namespaces/%s/persistentvolumeclaims", ns), claimObj(ns, "data", "local-wffc")},
		{fmt.Sprintf("/api/v1/namespaces/%s/persistentvolumeclaims", ns), claimObj(ns, "scratch", "fake-wffc")},
	}
	for _, s := range storage {
		if err := e.Create(s.path, s.obj); err != nil {
			return err
		}
	}
	// What the PV controller (not running here) does to a new PV: Available.
	if err := e.Patch("/api/v1/persistentvolumes/local-pv-c-n3/status",
		map[string]any{"status": map[string]any{"phase": "Available"}}); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	// The local PVs' class has no provisioner: ignored, as operators of local PVs under
	// Volcano must (Volcano issue 3271), through Volcano's own flag.
	c, err := e.StartCaldera("constraints", e.Kubeconfig("constraints", false, 0),
		"--ignored-provisioners=kubernetes.io/no-provisioner")
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 30*time.Second); err != nil {
		return err
	}
	only := map[string]string{"test": "constraints"}

	// A gang of 4 x 1 cpu, one per node: binpack alone would put all four on one node.
	if err := e.CreatePodGroup(ns, "train", "default", 4, ""); err != nil {
		return err
	}
	anti := map[string]any{"podAntiAffinity": map[string]any{
		"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
			"labelSelector": map[string]any{"matchLabels": map[string]any{"job": "train"}},
			"topologyKey":   "kubernetes.io/hostname"}}}}
	for i := 0; i < 4; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("train-%d", i), PodOpts{PodGroup: "train", CPU: "1",
			Labels: map[string]string{"job": "train"}, NodeSelector: only,
			Spec: map[string]any{"affinity": anti}}); err != nil {
			return err
		}
	}
	train, err := waitBound(e, ns, "train-", 4, 30*time.Second)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, n := range train {
		used[n] = true
	}
	if len(used) != 4 {
		return errorf("gang with one-per-node anti-affinity on %d nodes, want 4: %v", len(used), train)
	}

	// 4 pods spread over the two zones with maxSkew 1: two in each.
	if err := e.CreatePodGroup(ns, "web", "default", 1, ""); err != nil {
		return err
	}
	spread := []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
		"whenUnsatisfiable": "DoNotSchedule",
		"labelSelector":     map[string]any{"matchLabels": map[string]any{"app": "web"}}}}
	for i := 0; i < 4; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("web-%d", i), PodOpts{PodGroup: "web", CPU: "500m",
			Labels: map[string]string{"app": "web"}, NodeSelector: only,
			Spec: map[string]any{"topologySpreadConstraints": spread}}); err != nil {
			return err
		}
	}
	web, err := waitBound(e, ns, "web-", 4, 30*time.Second)
	if err != nil {
		return err
	}
	perZone := map[string]int{}
	for _, n := range web {
		perZone[zone[n]]++
	}
	if perZone["a"] != 2 || perZone["b"] != 2 {
		return errorf("zone spread with maxSkew 1 gave %v, want 2 and 2: %v", perZone, web)
	}

	// A pod whose WaitForFirstConsumer claim only the local PV on c-n3 can hold.
	volumes := func(claim string) map[string]any {
		return map[string]any{"volumes": []any{map[string]any{"name": "data",
			"persistentVolumeClaim": map[string]any{"claimName": claim}}}}
	}
	if err := e.CreatePod(ns, "db-0", PodOpts{CPU: "500m", NodeSelector: only, Spec: volumes("data")}); err != nil {
		return err
	}
	db, err := waitBound(e, ns, "db-", 1, 30*time.Second)
	if err != nil {
		return errorf("%v (db-0: %s)", err, podReason(e, ns, "db-0"))
	}
	if db["db-0"] != "c-n3" {
		return errorf("pod with the local PV's claim bound to %q, want c-n3 (the PV's node)", db["db-0"])
	}
	var pv struct {
		Metadata struct{ Annotations map[string]string }
		Spec     struct {
			ClaimRef struct{ Kind, Namespace, Name, UID string } `json:"claimRef"`
		}
	}
	if err := e.Get("/api/v1/persistentvolumes/local-pv-c-n3", &pv); err != nil {
		return err
	}
	var claim struct {
		Metadata struct {
			UID         string
			Annotations map[string]string
		}
	}
	if err := e.Get(fmt.Sprintf("/api/v1/namespaces/%s/persistentvolumeclaims/data", ns), &claim); err != nil {
		return err
	}
	ref := pv.Spec.ClaimRef
	if ref.Kind != "PersistentVolumeClaim" || ref.Namespace != ns || ref.Name != "data" || ref.UID != claim.Metadata.UID {
		return errorf("PV claimRef %+v, want the claim %s/data (uid %s)", ref, ns, claim.Metadata.UID)
	}
	if pv.Metadata.Annotations["pv.kubernetes.io/bound-by-controller"] != "yes" {
		return errorf("PV annotations %v, want pv.kubernetes.io/bound-by-controller: yes", pv.Metadata.Annotations)
	}

	// A pod whose claim is to be provisioned: bound anywhere, the claim told where.
	if err := e.CreatePod(ns, "cache-0", PodOpts{CPU: "500m", NodeSelector: only, Spec: volumes("scratch")}); err != nil {
		return err
	}
	cache, err := waitBound(e, ns, "cache-", 1, 30*time.Second)
	if err != nil {
		return errorf("%v (cache-0: %s)", err, podReason(e, ns, "cache-0"))
	}
	if err := e.Get(fmt.Sprintf("/api/v1/namespaces/%s/persistentvolumeclaims/scratch", ns), &claim); err != nil {
		return err
	}
	if got := claim.Metadata.Annotations["volume.kubernetes.io/selected-node"]; got != cache["cache-0"] {
		return errorf("claim scratch selected-node %q, want the pod's node %q", got, cache["cache-0"])
	}
	return nil
}

func claimObj(ns, name, class string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolumeClaim",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "storageClassName": class,
			"resources": map[string]any{"requests": map[string]any{"storage": "5Gi"}}},
	}
}

// The message of the pod's PodScheduled condition, for failures.
func podReason(e *Env, ns, name string) string {
	var p Pod
	if err := e.Get(fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", ns, name), &p); err != nil {
		return err.Error()
	}
	for _, c := range p.Status.Conditions {
		if c.Type == "PodScheduled" {
			return c.Reason + ": " + c.Message
		}
	}
	return "no PodScheduled condition"
}
