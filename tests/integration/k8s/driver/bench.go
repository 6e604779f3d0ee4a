package main

import (
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"
)

// runBench fills the API server with `nodes` nodes and `pods` pods (all but `pending` of
// them already bound, spread over the nodes), starts Caldera, and reports the time to its
// initial sync and how fast it binds the pending pods (single-pod jobs, 1 cpu each).
func runBench(e *Env, nodes, pods, pending int) error {
	if pending > pods {
		pending = pods
	}
	e.Namespace("bench-running")
	e.Namespace("bench-pending")
	t0 := time.Now()
	// The pending pods may go to the first `targets` nodes only (a node selector): every
	// node is still checked for every pod, but only those are scored, so the session stays
	// short and the bind rate shows the backend rather than the policy's scoring cost.
	targets := nodes / 100
	if targets < 1 {
		targets = 1
	}
	if err := parallel(nodes, 32, func(i int) error {
		labels := map[string]string{"bench": "yes"}
		if i < targets {
			labels["bench-target"] = "yes"
		}
		return e.Create("/api/v1/nodes", Node(fmt.Sprintf("bench-n%05d", i), "64", "256Gi", labels))
	}); err != nil {
		return err
	}
	fmt.Printf("created %d nodes in %.1fs\n", nodes, time.Since(t0).Seconds())
	running := pods - pending
	t0 = time.Now()
	if err := parallel(running, 48, func(i int) error {
		return e.CreatePod("bench-running", fmt.Sprintf("run-%06d", i), PodOpts{CPU: "100m",
			NodeName: fmt.Sprintf("bench-n%05d", i%nodes)})
	}); err != nil {
		return err
	}
	fmt.Printf("created %d bound pods in %.1fs\n", running, time.Since(t0).Seconds())
	t0 = time.Now()
	if err := parallel(pending, 48, func(i int) error {
		return e.CreatePod("bench-pending", fmt.Sprintf("job-%06d", i), PodOpts{CPU: "100m",
			NodeSelector: map[string]string{"bench-target": "yes"}})
	}); err != nil {
		return err
	}
	fmt.Printf("created %d pending pods in %.1fs\n", pending, time.Since(t0).Seconds())

	start := time.Now()
	// -v 3: each session's own line (its time) is read from the log below.
	c, err := e.StartCaldera("bench", e.Kubeconfig("bench", false, 0), "--v=3")
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 10*time.Minute); err != nil {
		return err
	}
	wall := time.Since(start)
	m := regexp.MustCompile(`initial sync done in ([0-9.]+)s`).FindStringSubmatch(c.Output())
	syncAt := time.Now()

	var firstBind, lastBind time.Time
	err = WaitFor(20*time.Minute, "every pending pod bound", func() (bool, string) {
		var l struct {
			Items []struct {
				Metadata struct{ Name string }
			}
		}
		// Only the unbound ones: the list shrinks as Caldera binds.
		if err := e.Get("/api/v1/namespaces/bench-pending/pods?fieldSelector=spec.nodeName%3D", &l); err != nil {
			return false, err.Error()
		}
		left := len(l.Items)
		if left < pending && firstBind.IsZero() {
			firstBind = time.Now()
		}
		if left == 0 {
			lastBind = time.Now()
			return true, ""
		}
		return false, fmt.Sprintf("%d pods still unbound", left)
	})
	if err != nil {
		return err
	}
	c.Stop()
	binds := float64(pending)
	span := lastBind.Sub(syncAt).Seconds()
	fmt.Printf("BENCH nodes=%d pods=%d pending=%d\n", nodes, pods, pending)
	if len(m) == 2 {
		fmt.Printf("BENCH initial sync (Caldera's own clock): %ss\n", m[1])
	}
	fmt.Printf("BENCH initial sync (process start to synced, wall): %.2fs\n", wall.Seconds())
	for _, l := range regexp.MustCompile(`kubernetes: (\w+) synced: ([0-9]+) objects in ([0-9.]+)s`).FindAllStringSubmatch(c.Output(), -1) {
		fmt.Printf("BENCH   %s: %s objects listed in %ss\n", l[1], l[2], l[3])
	}
	fmt.Printf("BENCH binds: %d pods bound %.2fs after sync: %.0f binds/s end to end\n", pending, span, binds/span)
	// The session's own time and the write rate, from Caldera's log.
	for _, l := range regexp.MustCompile(`session \d+: bound [1-9][0-9]*, .*\(([0-9.]+)s\)`).FindAllStringSubmatch(c.Output(), -1) {
		fmt.Printf("BENCH session that bound pods took %ss\n", l[1])
	}
	for _, l := range regexp.MustCompile(`([0-9]+) binds written in ([0-9.]+)s \(([0-9]+) binds/s\)`).FindAllStringSubmatch(c.Output(), -1) {
		fmt.Printf("BENCH writes: %s binds written in %ss: %s binds/s\n", l[1], l[2], l[3])
	}
	fmt.Println(grep(c.Output(), "summary:"))
	return nil
}

// parallel runs f(0..n-1) on `workers` goroutines and returns the first error.
func parallel(n, workers int, f func(i int) error) error {
	var next int64 = -1
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(atomic.AddInt64(&next, 1))
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
