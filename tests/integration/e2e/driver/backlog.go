package main

// The backlog benchmark (issue 17, `-backlog`): a scheduler started on a cluster that
// already holds many KWOK nodes and a backlog of pending gangs, as after a restart or a
// fail-over, with Caldera and then volcano-scheduler on a fresh rig each. Measured from the
// scheduler's start (its process): the first bind and the last one as the driver's watch
// sees them (the pod's spec.nodeName set), binds per second from first to last; from /proc,
// its CPU and peak memory until the last bind.
//
// Why PodGroups and pods made by the driver, not VcJobs: Volcano's job controller makes a
// VcJob's pods only once the scheduler's enqueue has moved the job's PodGroup to Inqueue,
// so with VcJobs there would be no pending pods when the scheduler starts, and every bind
// would wait for the controller (its workers, its API rate limit) as well as for the
// scheduler. The driver makes what the job controller would have made: a PodGroup per gang
// (minMember, minResources, phase Pending, queue default) and its pods, which name it with
// the scheduling.k8s.io/group-name annotation. Volcano's podgroup controller leaves a pod
// with that annotation alone, so once the scheduler starts it is the only one placing
// them; KWOK then makes each bound pod Running.

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

type BacklogConfig struct {
	Nodes, Pods, Gang int
	// Timeout: how long the scheduler has, from its start, to bind every pod that fits;
	// after it the figures are still given.
	Timeout time.Duration
}

const (
	backlogNS     = "backlog"
	backlogPodCPU = 1 // per pod; memory 100Mi: 8 pods to a node (of 8 cpu, 32Gi, 110 pods)
)

// fits: how many of the pods the nodes can hold, in whole gangs. Every pod asks the same,
// so any set of pods that fits in the nodes' pod slots can be placed, whatever the gangs.
func (c BacklogConfig) fits() int {
	slots := c.Nodes * (fleetNodeCPU / backlogPodCPU)
	return min(c.Pods, slots/c.Gang*c.Gang)
}

// Check: the flags make a workload; the error names the flag at fault.
func (c BacklogConfig) Check() error {
	switch {
	case c.Nodes <= 0:
		return fmt.Errorf("-backlog-nodes %d: must be positive", c.Nodes)
	case c.Pods <= 0:
		return fmt.Errorf("-backlog-pods %d: must be positive", c.Pods)
	case c.Gang <= 0:
		return fmt.Errorf("-backlog-gang %d: must be positive", c.Gang)
	case c.Pods%c.Gang != 0:
		// A cut gang (minMember above its pods) could never be placed: every gang is whole.
		return fmt.Errorf("-backlog-pods %d is not a multiple of -backlog-gang %d (%d gangs and %d over): give whole gangs",
			c.Pods, c.Gang, c.Pods/c.Gang, c.Pods%c.Gang)
	case c.Timeout <= 0:
		return fmt.Errorf("-backlog-timeout %s: must be positive", c.Timeout)
	case c.fits() == 0:
		return fmt.Errorf("-backlog-gang %d: more pods than the %d that -backlog-nodes %d can hold",
			c.Gang, c.Nodes*fleetNodeCPU/backlogPodCPU, c.Nodes)
	}
	return nil
}

func backlogGroup(g int) string { return fmt.Sprintf("g%05d", g) }

// backlogPodGroup: gang g as Volcano's job controller would make it for a VcJob of gang
// pods: minMember, minResources (what enqueue checks), phase Pending (PodGroups have no
// status subresource: the phase is kept as created).
func backlogPodGroup(g, gang int) map[string]any {
	return map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
		"metadata": map[string]any{"name": backlogGroup(g), "namespace": backlogNS},
		"spec": map[string]any{"minMember": gang, "queue": "default",
			"minResources": map[string]any{"cpu": strconv.Itoa(gang * backlogPodCPU), "memory": fmt.Sprintf("%dMi", gang*100)}},
		"status": map[string]any{"phase": "Pending"},
	}
}

// backlogPod: pod i, of gang i/gang. No run-for annotation: it runs until the rig goes.
// schedulerName volcano: the name both schedulers answer to by default.
func backlogPod(i, gang int) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": fmt.Sprintf("%s-%d", backlogGroup(i/gang), i%gang), "namespace": backlogNS,
			"annotations": map[string]any{"scheduling.k8s.io/group-name": backlogGroup(i / gang)}},
		"spec": map[string]any{
			"schedulerName": "volcano",
			"containers": []any{map[string]any{"name": "main", "image": "registry.invalid/sleep",
				"resources": map[string]any{"requests": map[string]any{"cpu": strconv.Itoa(backlogPodCPU), "memory": "100Mi"}}}},
		},
	}
}

// RunBacklog runs the benchmark with each scheduler and prints the side-by-side table, then
// why each of skipped has no column; returns the number of failures.
func RunBacklog(b Bins, schedulers []string, skipped [][2]string, cfg BacklogConfig) int {
	fits := cfg.fits()
	fmt.Printf("### backlog: %d nodes (%d cpu, 32Gi), %d pending pods (%d cpu, 100Mi) in %d PodGroups of minMember %d, queue default, made before the scheduler starts; %d fit (%.0f%%); %s, load %s\n",
		cfg.Nodes, fleetNodeCPU, cfg.Pods, backlogPodCPU, cfg.Pods/cfg.Gang, cfg.Gang, fits, 100*float64(fits)/float64(cfg.Pods),
		time.Now().UTC().Format("2006-01-02 15:04 MST"), loadavg())
	results, failed := runEach("backlog", schedulers, func(which string) *BenchResult {
		return runBacklogOnce(b, which, cfg)
	})
	printTable(fmt.Sprintf("backlog: %d nodes, %d pods in gangs of %d (%d fit)", cfg.Nodes, cfg.Pods, cfg.Gang, fits),
		schedulers, results, skipped)
	return failed
}

func runBacklogOnce(b Bins, which string, cfg BacklogConfig) *BenchResult {
	res := &BenchResult{}
	t := time.Now()
	rig, err := NewRig(b, filepath.Join(b.Certs, "backlog-"+which))
	if err != nil {
		res.Err = fmt.Errorf("the rig did not come up: %v", err)
		return res
	}
	defer rig.Down()
	fmt.Printf("    rig up in %s\n", secs(time.Since(t)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := rig.Watch(ctx)

	capacity, made, ready, err := rig.addFleet("backlog-n", cfg.Nodes)
	if err != nil {
		res.Err = err
		return res
	}
	if err := rig.Namespace(backlogNS); err != nil {
		res.Err = err
		return res
	}
	// The PodGroups first: a pod is never seen without its group.
	t = time.Now()
	gangs := cfg.Pods / cfg.Gang
	if err := parallel(16, gangs, func(g int) error {
		return rig.Create("/apis/scheduling.volcano.sh/v1beta1/namespaces/"+backlogNS+"/podgroups", backlogPodGroup(g, cfg.Gang))
	}); err != nil {
		res.Err = err
		return res
	}
	if err := parallel(16, cfg.Pods, func(i int) error {
		return rig.Create("/api/v1/namespaces/"+backlogNS+"/pods", backlogPod(i, cfg.Gang))
	}); err != nil {
		res.Err = err
		return res
	}
	// Every pod in the history before the clock starts (its record is made when the watch
	// first sees it).
	if err := waitForEvery(time.Second, 2*time.Minute, "the watch to see every pod", func() (bool, string) {
		n := len(h.Pods(backlogNS))
		return n >= cfg.Pods, fmt.Sprintf("%d of %d", n, cfg.Pods)
	}); err != nil {
		res.Err = err
		return res
	}
	created := time.Since(t)
	fmt.Printf("    %d PodGroups and %d pods created in %s\n", gangs, cfg.Pods, secs(created))
	if n := h.Binds(backlogNS); n > 0 {
		res.Err = fmt.Errorf("%d pods bound before the scheduler started", n)
		return res
	}

	m, err := startMetered(ctx, rig, which)
	if err != nil {
		res.Err = err
		return res
	}
	fits := cfg.fits()
	timedOut := false
	next := m.Start.Add(10 * time.Second)
	for {
		n := h.Binds(backlogNS)
		if n >= fits {
			break
		}
		if !m.Sched.Running() {
			res.Err = fmt.Errorf("%s exited:\n%s", which, m.Sched.Tail(20))
			break
		}
		if time.Since(m.Start) > cfg.Timeout {
			timedOut = true
			break
		}
		if time.Now().After(next) {
			next = next.Add(10 * time.Second)
			fmt.Printf("    +%3.0fs: bound %d of %d; load %s\n", time.Since(m.Start).Seconds(), n, fits, loadavg())
		}
		time.Sleep(100 * time.Millisecond)
	}
	use := m.Read() // before the scheduler stops
	m.Sched.Stop()
	cancel()

	var binds []time.Time
	var toRunning []time.Duration
	for _, p := range h.Pods(backlogNS) {
		if p.Bound.IsZero() {
			continue
		}
		binds = append(binds, p.Bound)
		if !p.Running.IsZero() {
			toRunning = append(toRunning, p.Running.Sub(p.Bound))
		}
	}
	sort.Slice(binds, func(i, j int) bool { return binds[i].Before(binds[j]) })
	if len(binds) == 0 {
		res.row("first bind after start", "none in %s", cfg.Timeout)
		if res.Err == nil {
			res.Err = fmt.Errorf("%s bound no pod in %s:\n%s", which, cfg.Timeout, m.Sched.Tail(20))
		}
	} else {
		res.row("first bind after start", "%s", secs(binds[0].Sub(m.Start)))
	}
	if len(binds) >= fits {
		res.row("all bound after start", "%s", secs(binds[fits-1].Sub(m.Start)))
	} else if timedOut {
		res.row("all bound after start", "not within %s", cfg.Timeout)
	} else {
		res.row("all bound after start", "-")
	}
	if len(binds) > 1 {
		span := binds[len(binds)-1].Sub(binds[0])
		res.row("binds/s, first to last bind", "%.1f (%d binds over %s)", float64(len(binds)-1)/span.Seconds(), len(binds), secs(span))
	}
	use.schedRows(res)
	res.row("pods bound (of made; that fit)", "%d (%d; %d)", len(binds), cfg.Pods, fits)
	res.row("bound -> Running (KWOK): median / p99", "%s", quantiles(toRunning, 0.5, 0.99))
	res.row("nodes created; all Ready (KWOK) after", "%s; %s", secs(made), secs(ready))
	res.row("PodGroups and pods created in", "%s", secs(created))
	res.row("load average at the scheduler's start (1/5/15 min)", "%s", m.LoadStart)
	use.rigRows(res)
	if err := h.CheckCapacity(backlogNS, capacity); err != nil {
		res.row("nodes overcommitted", "%v", err)
	} else {
		res.row("nodes overcommitted", "none")
	}
	// Only the driver's PodGroups: one made by Volcano's podgroup controller would mean
	// that some pods were not in the gangs the benchmark says.
	if n := len(h.PodGroupsIn(backlogNS)); n != gangs && res.Err == nil {
		res.Err = fmt.Errorf("%d PodGroups in %s, the driver made %d", n, backlogNS, gangs)
	}
	return res
}
