// The Kubernetes integration tests of Caldera (issue 8): a real kube-apiserver and etcd on
// loopback, Caldera run as `caldera run --backend kubernetes`, and assertions on what it
// wrote through the API. Run by ../run.sh (meson test k8s-integration); --bench measures
// the initial sync of a large cluster and the bind throughput instead.
package main

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

type test struct {
	name string
	run  func(e *Env) error
}

func main() {
	e := &Env{}
	flag.StringVar(&e.Work, "work", "", "scratch folder holding the certificates and tokens")
	flag.StringVar(&e.EtcdBin, "etcd", "etcd", "etcd binary")
	flag.StringVar(&e.APIBin, "apiserver", "", "kube-apiserver binary")
	flag.StringVar(&e.CalderaBin, "caldera", "", "caldera binary")
	flag.StringVar(&e.Source, "source", "", "the repository root")
	flag.StringVar(&e.FaultPlugins, "fault-plugins", "", "the build folder of the faulty test plugins (faulty_segv.so ...)")
	only := flag.String("run", "", "run only the tests whose name contains this")
	bench := flag.Bool("bench", false, "benchmark: initial sync of a large cluster and bind throughput")
	nodes := flag.Int("bench-nodes", 10000, "benchmark nodes")
	pods := flag.Int("bench-pods", 100000, "benchmark pods (all but bench-pending are bound already)")
	pending := flag.Int("bench-pending", 10000, "benchmark pods left for Caldera to bind")
	flag.Parse()
	e.Config = filepath.Join(e.Source, "tests", "integration", "k8s", "caldera-test.toml")

	if err := e.Setup(); err != nil {
		fmt.Println("setup failed:", err)
		e.Teardown()
		os.Exit(1)
	}
	defer e.Teardown()
	if err := clusterSetup(e); err != nil {
		fmt.Println("cluster setup failed:", err)
		e.Teardown()
		os.Exit(1)
	}

	if *bench {
		if err := runBench(e, *nodes, *pods, *pending); err != nil {
			fmt.Println("benchmark failed:", err)
			e.Teardown()
			os.Exit(1)
		}
		return
	}

	tests := []test{
		{"gang-whole-or-nothing", testGang},
		{"node-selector-limits-nodes", testNodeSelector},
		{"queues-share-by-weight", testQueues},
		{"preempt-through-eviction-api", testPreempt},
		{"apiserver-restart-resumes", testRestart},
		{"leader-election", testLeader},
		{"topology-hard-job-in-one-hypernode", testTopology},
		{"constraints-anti-affinity-spread-volumes", testConstraints},
		{"api-faults-survived", testFaults},
		{"lists-as-client-go", testLists},
		{"hostile-objects-reported", testHostile},
		{"plugin-faults-contained", testPluginFaults},
		{"writes-as-volcano-scheduler", testVolcanoWrites},
	}
	passed, failed, skipped := 0, 0, 0
	for _, t := range tests {
		if *only != "" && !strings.Contains(t.name, *only) {
			continue
		}
		start := time.Now()
		fmt.Printf("=== RUN   %s\n", t.name)
		err := t.run(e)
		if errors.Is(err, errSkip) {
			skipped++
			fmt.Printf("--- SKIP: %s: %v\n", t.name, err)
			continue
		}
		if err != nil {
			failed++
			fmt.Printf("--- FAIL: %s (%.1fs)\n    %s\n", t.name, time.Since(start).Seconds(),
				strings.ReplaceAll(err.Error(), "\n", "\n    "))
		} else {
			passed++
			fmt.Printf("--- PASS: %s (%.1fs)\n", t.name, time.Since(start).Seconds())
		}
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 {
		e.Teardown()
		os.Exit(1)
	}
}

// clusterSetup installs what a cluster running Caldera has: the CRDs and RBAC from deploy/
// (the RBAC bound to the test's user as well), the default queue, priority classes.
func clusterSetup(e *Env) error {
	deploy := filepath.Join(e.Source, "deploy")
	if err := e.ApplyYAML(filepath.Join(deploy, "crds.yaml")); err != nil {
		return err
	}
	for _, crd := range []string{"podgroups.scheduling.volcano.sh", "queues.scheduling.volcano.sh",
		"hypernodes.topology.volcano.sh"} {
		err := WaitFor(30*time.Second, "CRD "+crd+" established", func() (bool, string) {
			var c struct {
				Status struct {
					Conditions []struct{ Type, Status string }
				}
			}
			if err := e.Get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crd, &c); err != nil {
				return false, err.Error()
			}
			for _, cond := range c.Status.Conditions {
				if cond.Type == "Established" && cond.Status == "True" {
					return true, ""
				}
			}
			return false, "not established"
		})
		if err != nil {
			return err
		}
	}
	if err := e.ApplyYAML(filepath.Join(deploy, "rbac.yaml")); err != nil {
		return err
	}
	// Caldera runs as the user "caldera-scheduler" (token or client certificate) with the
	// ClusterRole of deploy/rbac.yaml: the tests check that the role is enough.
	if err := e.Create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "caldera-scheduler-test-user"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "caldera-scheduler"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "caldera-scheduler"}},
	}); err != nil {
		return err
	}
	if err := e.Create("/apis/scheduling.volcano.sh/v1beta1/queues", QueueObj("default", 1)); err != nil {
		return err
	}
	for name, v := range map[string]int{"low": 10, "mid": 20, "high": 1000} {
		if err := e.Create("/apis/scheduling.k8s.io/v1/priorityclasses", map[string]any{
			"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
			"metadata": map[string]any{"name": name}, "value": v,
		}); err != nil {
			return err
		}
	}
	return nil
}

// cleanup deletes a test's pods, PodGroups, PDBs and nodes so the next test starts empty.
func cleanup(e *Env, ns string, nodes []string, queues []string) {
	if pods, err := e.Pods(ns); err == nil {
		for _, p := range pods {
			e.Delete(fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", ns, p.Metadata.Name))
		}
	}
	var pgs struct {
		Items []struct{ Metadata struct{ Name string } }
	}
	if e.Get(fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups", ns), &pgs) == nil {
		for _, pg := range pgs.Items {
			e.Delete(fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups/%s", ns, pg.Metadata.Name))
		}
	}
	var pdbs struct {
		Items []struct{ Metadata struct{ Name string } }
	}
	if e.Get(fmt.Sprintf("/apis/policy/v1/namespaces/%s/poddisruptionbudgets", ns), &pdbs) == nil {
		for _, p := range pdbs.Items {
			e.Delete(fmt.Sprintf("/apis/policy/v1/namespaces/%s/poddisruptionbudgets/%s", ns, p.Metadata.Name))
		}
	}
	for _, n := range nodes {
		e.Delete("/api/v1/nodes/" + n)
	}
	for _, q := range queues {
		e.Delete("/apis/scheduling.volcano.sh/v1beta1/queues/" + q)
	}
}

// bound returns the pods of ns whose name starts with prefix and that have a node.
func bound(e *Env, ns, prefix string) (map[string]string, error) {
	pods, err := e.Pods(ns)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range pods {
		if strings.HasPrefix(p.Metadata.Name, prefix) && p.Spec.NodeName != "" {
			out[p.Metadata.Name] = p.Spec.NodeName
		}
	}
	return out, nil
}

func waitBound(e *Env, ns, prefix string, n int, d time.Duration) (map[string]string, error) {
	var got map[string]string
	err := WaitFor(d, fmt.Sprintf("%d pods %s/%s* bound", n, ns, prefix), func() (bool, string) {
		b, err := bound(e, ns, prefix)
		if err != nil {
			return false, err.Error()
		}
		got = b
		return len(b) >= n, fmt.Sprintf("%d bound: %v", len(b), b)
	})
	return got, err
}

// overcommitted reports nodes whose pods ask for more cpu (in millicores) than the node has.
func overcommitted(e *Env, ns string, capacity map[string]int) error {
	pods, err := e.Pods(ns)
	if err != nil {
		return err
	}
	used := map[string]int{}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		for _, c := range p.Spec.Containers {
			used[p.Spec.NodeName] += milli(c.Resources.Requests["cpu"])
		}
	}
	for n, u := range used {
		if c, ok := capacity[n]; ok && u > c {
			return fmt.Errorf("node %s overcommitted: %dm of %dm cpu requested", n, u, c)
		}
	}
	return nil
}

func milli(q string) int {
	if strings.HasSuffix(q, "m") {
		var v int
		fmt.Sscanf(strings.TrimSuffix(q, "m"), "%d", &v)
		return v
	}
	var v float64
	fmt.Sscanf(q, "%g", &v)
	return int(v * 1000)
}

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }
