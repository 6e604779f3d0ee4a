package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Objects with odd or hostile values never stop the scheduler, and each says what is wrong
// once, naming the object and the field. Through the API server (whose validation lets
// these through): a Queue of weight -3 with a negative and an infinite capability, a
// PodGroup with minMember -1, one whose minResources ask for 1e30 cpu, one naming a queue
// that does not exist, a pod naming a PodGroup that does not exist, a node and a pod with
// labels at their size limits and a 200 kB annotation. Through the proxy, into the watch
// streams (what validation would refuse): a pod of another scheduler with a negative cpu, an
// unparsable memory, an unknown resource name, a priority that is a string and a label
// that is a number; a node with a negative cpu and taints that are not a list; a line that
// is not JSON and an event of an unknown type. Meanwhile a pod of another scheduler holds
// 3 cpu of h-n1, so the 2-cpu pod goes to h-n2; a pod with schedulerName caldera (Caldera
// runs with two names) is bound; one of a third scheduler is left alone.
func testHostile(e *Env) error {
	ns := "hostile"
	nodes := []string{"h-n1", "h-n2"}
	defer cleanup(e, ns, nodes, []string{"h-neg"})
	e.Namespace(ns)
	// Label key: a 253-character DNS prefix and a 63-character name; value: 63 characters.
	longKey := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." +
		strings.Repeat("d", 61) + "/" + strings.Repeat("n", 63)
	longValue := strings.Repeat("v", 63)
	for _, n := range nodes {
		if err := e.Create("/api/v1/nodes", Node(n, "4", "16Gi", map[string]string{longKey: longValue, "test": "hostile"})); err != nil {
			return err
		}
	}
	p, err := e.StartProxy(e.path("proxy.crt"), e.path("proxy.key"))
	if err != nil {
		return err
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	c, err := e.StartCaldera("hostile", e.ProxyKubeconfig("hostile", p, "caldera-proxy.test"),
		"--scheduler-name", "volcano", "--scheduler-name", "caldera")
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 30*time.Second); err != nil {
		return err
	}

	// Through the API server.
	q := QueueObj("h-neg", 1)
	q["spec"] = map[string]any{"weight": -3, "capability": map[string]any{"cpu": "-2", "memory": "1e400"}}
	if err := e.Create("/apis/scheduling.volcano.sh/v1beta1/queues", q); err != nil {
		return err
	}
	pgPath := fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups", ns)
	if err := e.Create(pgPath, PodGroupObj(ns, "h-negmin", "default", -1, "")); err != nil {
		return err
	}
	huge := PodGroupObj(ns, "h-huge", "default", 1, "")
	huge["spec"].(map[string]any)["minResources"] = map[string]any{"cpu": "1e30"}
	if err := e.Create(pgPath, huge); err != nil {
		return err
	}
	if err := e.CreatePodGroup(ns, "h-noqueue", "nope", 1, ""); err != nil {
		return err
	}
	if err := e.CreatePod(ns, "h-foreign", PodOpts{CPU: "3", Scheduler: "default-scheduler", NodeName: "h-n1"}); err != nil {
		return err
	}
	// The Kubelet marks h-foreign Running; wait for it before the pods that must avoid h-n1.
	if err := waitRunning(e, ns, "h-foreign", 1); err != nil {
		return err
	}
	for _, pod := range []struct {
		name string
		o    PodOpts
	}{
		{"h-negmin-0", PodOpts{PodGroup: "h-negmin", CPU: "100m"}},
		{"h-huge-0", PodOpts{PodGroup: "h-huge", CPU: "100m"}},
		{"h-noqueue-0", PodOpts{PodGroup: "h-noqueue", CPU: "100m"}},
		{"h-nopg-0", PodOpts{PodGroup: "missing", CPU: "100m"}},
		{"h-other-0", PodOpts{CPU: "100m", Scheduler: "someone-else"}},
		{"h-cal-0", PodOpts{CPU: "100m", Scheduler: "caldera"}},
		{"h-ok-0", PodOpts{CPU: "2"}},
	} {
		if err := e.CreatePod(ns, pod.name, pod.o); err != nil {
			return err
		}
	}
	big := PodObj(ns, "h-labels-0", PodOpts{CPU: "500m", Labels: map[string]string{longKey: longValue}})
	big["metadata"].(map[string]any)["annotations"] = map[string]any{"example.com/blob": strings.Repeat("x", 200*1024)}
	if err := e.Create(fmt.Sprintf("/api/v1/namespaces/%s/pods", ns), big); err != nil {
		return err
	}

	// Through the proxy, into the streams.
	var list struct {
		Metadata struct{ ResourceVersion string }
	}
	if err := e.Get("/api/v1/pods?limit=1", &list); err != nil {
		return err
	}
	rv := list.Metadata.ResourceVersion
	ghost := map[string]any{"type": "ADDED", "object": map[string]any{
		"kind": "Pod", "apiVersion": "v1",
		"metadata": map[string]any{"name": "h-ghost", "namespace": ns, "uid": "ghost-uid", "resourceVersion": rv,
			"labels": map[string]any{"bad": 7}},
		"spec": map[string]any{"schedulerName": "default-scheduler", "nodeName": "h-n2", "priority": "high",
			"containers": []any{map[string]any{"name": "c", "resources": map[string]any{"requests": map[string]any{
				"cpu": "-1", "memory": "lots", "foo": "1", "example.com/x": "1e400"}}}}},
		"status": map[string]any{"phase": "Running"},
	}}
	ghostNode := map[string]any{"type": "ADDED", "object": map[string]any{
		"kind": "Node", "apiVersion": "v1",
		"metadata": map[string]any{"name": "h-ghost-node", "uid": "ghost-node-uid", "resourceVersion": rv},
		"spec":     map[string]any{"taints": "all of them"},
		"status": map[string]any{"allocatable": map[string]any{"cpu": "-4", "pods": "110"},
			"conditions": []any{map[string]any{"type": "Ready", "status": "False"}}},
	}}
	for _, inj := range []struct {
		path  string
		event any
	}{
		{"/api/v1/pods", ghost},
		{"/api/v1/nodes", ghostNode},
		{"/api/v1/pods", RawLine("{this is not json")},
		{"/api/v1/pods", map[string]any{"type": "WEIRD", "object": map[string]any{}}},
	} {
		if n := p.Inject(inj.path, inj.event); n != 1 {
			return errorf("injected into %d %s watches, want 1", n, inj.path)
		}
	}

	// The scheduler keeps going.
	b, err := waitBound(e, ns, "h-", 4, 20*time.Second) // h-foreign, h-cal-0, h-ok-0, h-labels-0
	if err != nil {
		return errorf("%v\ncaldera:\n%s", err, tail(c.Output(), 20))
	}
	if b["h-ok-0"] != "h-n2" {
		return errorf("h-ok-0 (2 cpu) bound to %q, want h-n2: h-n1 holds another scheduler's 3-cpu pod", b["h-ok-0"])
	}
	if b["h-cal-0"] == "" || b["h-labels-0"] == "" {
		return errorf("bound %v: want h-cal-0 (schedulerName caldera) and h-labels-0", b)
	}
	wants := []string{
		"Queue h-neg: weight -3 is negative; 1 is used",
		"Queue h-neg: capability: cpu: '-2' is negative; ignored",
		"Queue h-neg: capability: memory: '1e400' is beyond any real amount; capped",
		"PodGroup hostile/h-negmin: minMember -1 is negative; the PodGroup is skipped",
		"PodGroup hostile/h-huge: minResources: cpu: '1e30' is beyond any real amount; capped",
		"PodGroup hostile/h-noqueue: queue 'nope' does not exist",
		"pod hostile/h-nopg-0: PodGroup hostile/missing (annotation scheduling.k8s.io/group-name) does not exist",
		"pod hostile/h-ghost: labels['bad'] is not a string; ignored",
		"pod hostile/h-ghost: 'priority' is not an integer; ignored",
		"pod hostile/h-ghost: container c: requests: cpu: '-1' is negative; ignored",
		"pod hostile/h-ghost: container c: requests: memory: 'lots' is not a quantity; ignored",
		"pod hostile/h-ghost: container c: requests: 'foo' is not a resource name the scheduler can count; ignored",
		"pod hostile/h-ghost: container c: requests: example.com/x: '1e400' is beyond any real amount; capped",
		"node h-ghost-node: 'taints' is not a list; ignored",
		"node h-ghost-node: allocatable: cpu: '-4' is negative; ignored",
		"pods: a watch event that is not an event object; skipped",
		"pods: unknown watch event type 'WEIRD'; skipped",
	}
	err = WaitFor(15*time.Second, "a log line for every hostile value", func() (bool, string) {
		out := c.Output()
		var missing []string
		for _, w := range wants {
			if !strings.Contains(out, w) {
				missing = append(missing, w)
			}
		}
		return len(missing) == 0, "missing:\n" + strings.Join(missing, "\n")
	})
	if err != nil {
		return errorf("%v\ncaldera:\n%s", err, grep(c.Output(), "kubernetes:"))
	}
	// The pods that cannot be scheduled say why, on the pod.
	err = WaitFor(15*time.Second, "FailedScheduling events that say why", func() (bool, string) {
		evs, err := e.Events(ns)
		if err != nil {
			return false, err.Error()
		}
		want := map[string]string{
			"h-nopg-0":    "PodGroup hostile/missing (annotation scheduling.k8s.io/group-name) does not exist",
			"h-negmin-0":  "PodGroup hostile/h-negmin cannot be used (PodGroup hostile/h-negmin: minMember -1 is negative",
			"h-noqueue-0": "queue 'nope' of PodGroup hostile/h-noqueue does not exist",
		}
		pgEvent := false
		for _, ev := range evs {
			if ev.Reason == "FailedScheduling" && strings.Contains(ev.Message, want[ev.InvolvedObject.Name]) {
				delete(want, ev.InvolvedObject.Name)
			}
			if ev.InvolvedObject.Kind == "PodGroup" && ev.InvolvedObject.Name == "h-noqueue" &&
				strings.Contains(ev.Message, "queue 'nope' does not exist") {
				pgEvent = true
			}
		}
		return len(want) == 0 && pgEvent, fmt.Sprintf("still missing %v, PodGroup event %v", want, pgEvent)
	})
	if err != nil {
		return err
	}
	time.Sleep(3 * time.Second) // more sessions: nothing changes, nothing is said twice
	out := c.Output()
	for _, w := range wants[:7] {
		if k := strings.Count(out, "kubernetes: "+w); k != 1 {
			return errorf("%q logged %d times, want once", w, k)
		}
	}
	pods, err := e.Pods(ns)
	if err != nil {
		return err
	}
	for _, pod := range pods {
		switch pod.Metadata.Name {
		case "h-negmin-0", "h-huge-0", "h-noqueue-0", "h-nopg-0", "h-other-0":
			if pod.Spec.NodeName != "" {
				return errorf("%s bound to %s", pod.Metadata.Name, pod.Spec.NodeName)
			}
		}
		if pod.Metadata.Name == "h-other-0" && len(pod.Status.Conditions) != 0 {
			return errorf("h-other-0 belongs to another scheduler, but has conditions %+v", pod.Status.Conditions)
		}
	}
	if pg, err := e.PodGroup(ns, "h-huge"); err != nil || pg.Status.Phase != "Pending" {
		return errorf("PodGroup h-huge (minResources 1e30 cpu) is %q (%v), want Pending", pg.Status.Phase, err)
	}
	if !c.Running() {
		return errorf("caldera exited:\n%s", tail(c.Output(), 20))
	}
	return nil
}
