package main

// The fleet benchmark (issue 19, `-fleet`): many KWOK nodes, VcJobs arriving at a steady
// rate over a span, each pod running 30 to 120 s, with Caldera and then volcano-scheduler
// on a fresh rig each. Measured from the pod history: time from a VcJob's submission to
// each of its pods Running, binds per second; from /proc: the CPU and memory of the
// scheduler, and for context those of the rest of the rig. The workload is the same for
// every scheduler (math/rand with a fixed seed).

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

type FleetConfig struct {
	Nodes, Pods int
	Arrival     time.Duration // jobs are submitted at a steady rate over this span
	Seed        int64
	// ControllerQPS: vc-controller-manager's --kube-api-qps (burst twice that); 0 keeps
	// Volcano's default, 50. At 20,000 pods in 300 s the job controller alone makes 67 pods
	// a second, plus their PodGroups and its job status writes: at 50 requests a second it,
	// not the scheduler, would set the pace.
	ControllerQPS int
}

// Check: the flags make a workload; the error names the flag at fault.
func (c FleetConfig) Check() error {
	switch {
	case c.Nodes <= 0:
		return fmt.Errorf("-fleet-nodes %d: must be positive", c.Nodes)
	case c.Pods <= 0:
		return fmt.Errorf("-fleet-pods %d: must be positive", c.Pods)
	case c.Arrival < 0:
		return fmt.Errorf("-fleet-arrival %s: must not be negative (0: every job at once)", c.Arrival)
	case c.ControllerQPS < 0:
		return fmt.Errorf("-fleet-controller-qps %d: must be 0 (Volcano's default) or more", c.ControllerQPS)
	}
	return nil
}

const (
	fleetNS      = "fleet"
	fleetNodeCPU = 8 // per node; memory 32Gi
)

type fleetJob struct {
	Name, Queue string
	Pods, CPU   int
	RunFor      time.Duration
	At          time.Duration // after the first submission
}

// fleetWorkload: jobs of 1 to 16 pods (a gang: minAvailable = replicas), 1 or 2 cpu a pod,
// each pod running a uniform 30 to 120 s, in queues q3, q1 and default at random, until
// cfg.Pods pods (the last job is cut to fit); submitted at even intervals over the span.
func fleetWorkload(cfg FleetConfig) []fleetJob {
	rng := rand.New(rand.NewSource(cfg.Seed))
	queues := []string{"q3", "q1", "default"}
	var jobs []fleetJob
	for left := cfg.Pods; left > 0; {
		n := 1 + rng.Intn(16)
		if n > left {
			n = left
		}
		left -= n
		jobs = append(jobs, fleetJob{
			Name: fmt.Sprintf("j%05d", len(jobs)), Queue: queues[rng.Intn(len(queues))],
			Pods: n, CPU: 1 + rng.Intn(2),
			RunFor: 30*time.Second + time.Duration(rng.Intn(90001))*time.Millisecond,
		})
	}
	for i := range jobs {
		jobs[i].At = time.Duration(int64(cfg.Arrival) * int64(i) / int64(len(jobs)))
	}
	return jobs
}

// BenchResult: one scheduler's figures in a benchmark (fleet or backlog), as rows (label,
// value) in a fixed order, so the final table lines them up by row.
type BenchResult struct {
	Rows [][2]string
	Err  error
}

func (f *BenchResult) row(label, format string, a ...any) {
	f.Rows = append(f.Rows, [2]string{label, fmt.Sprintf(format, a...)})
}

// RunFleet runs the benchmark for each scheduler and prints the side-by-side table;
// returns the number of failures (a rig or scheduler that did not come up or died).
func RunFleet(b Bins, schedulers []string, cfg FleetConfig) int {
	if cfg.ControllerQPS > 0 {
		b.ControllerArgs = []string{fmt.Sprintf("--kube-api-qps=%d", cfg.ControllerQPS),
			fmt.Sprintf("--kube-api-burst=%d", 2*cfg.ControllerQPS)}
	}
	jobs := fleetWorkload(cfg)
	cpuAsked, runSecs := 0, 0.0
	for _, j := range jobs {
		cpuAsked += j.Pods * j.CPU
		runSecs += float64(j.Pods) * j.RunFor.Seconds()
	}
	fmt.Printf("### fleet: %d nodes (%d cpu, 32Gi), %d pods in %d VcJobs (gangs of 1-16, %d cpu in all), submitted over %s, pods running 30-120 s (mean %.0f s), seed %d, %s, vc-controller-manager qps %d\n",
		cfg.Nodes, fleetNodeCPU, cfg.Pods, len(jobs), cpuAsked, cfg.Arrival, runSecs/float64(cfg.Pods), cfg.Seed,
		time.Now().UTC().Format("2006-01-02 15:04 MST"), cfg.ControllerQPS)
	results, failed := runEach("fleet", schedulers, func(which string) *BenchResult {
		return runFleetOnce(b, which, cfg, jobs)
	})
	printTable(fmt.Sprintf("%d nodes, %d pods, arrival %s, seed %d", cfg.Nodes, cfg.Pods, cfg.Arrival, cfg.Seed),
		schedulers, results, nil)
	return failed
}

// runEach runs a benchmark (kind: fleet, backlog) with each scheduler in turn, printing each
// one's figures as it finishes; the results in the same order, and how many failed.
func runEach(kind string, schedulers []string, run func(which string) *BenchResult) ([]*BenchResult, int) {
	failed := 0
	var results []*BenchResult
	for _, which := range schedulers {
		fmt.Printf("### scheduler: %s\n", which)
		res := run(which)
		for _, r := range res.Rows {
			fmt.Printf("    . %s: %s\n", r[0], r[1])
		}
		if res.Err != nil {
			failed++
			fmt.Printf("--- FAIL: %s/%s: %s\n", kind, which, strings.ReplaceAll(res.Err.Error(), "\n", "\n    "))
		} else {
			fmt.Printf("--- DONE: %s/%s\n", kind, which)
		}
		results = append(results, res)
	}
	return results, failed
}

// printTable prints one markdown table, a column per scheduler (names, results in the same
// order), rows in the order the results first give them; then, for each scheduler of
// skipped, why it has no column.
func printTable(title string, names []string, results []*BenchResult, skipped [][2]string) {
	fmt.Printf("\n| %s |", title)
	for _, n := range names {
		fmt.Printf(" %s |", schedLabel(n))
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("---|", len(names)))
	var rows []string
	seen := map[string]bool{}
	for _, res := range results {
		for _, r := range res.Rows {
			if !seen[r[0]] {
				seen[r[0]] = true
				rows = append(rows, r[0])
			}
		}
	}
	for _, l := range rows {
		fmt.Printf("| %s |", l)
		for _, res := range results {
			v := "-"
			for _, r := range res.Rows {
				if r[0] == l {
					v = r[1]
				}
			}
			fmt.Printf(" %s |", v)
		}
		fmt.Println()
	}
	for _, s := range skipped {
		fmt.Printf("\n%s: no column: %s\n", schedLabel(s[0]), s[1])
	}
}

// schedLabel: how the tables name a scheduler of -schedulers.
func schedLabel(which string) string {
	if l, ok := map[string]string{"caldera": "Caldera", "volcano": "volcano-scheduler"}[which]; ok {
		return l
	}
	return which
}

func runFleetOnce(b Bins, which string, cfg FleetConfig, jobs []fleetJob) *BenchResult {
	res := &BenchResult{}
	t := time.Now()
	rig, err := NewRig(b, filepath.Join(b.Certs, "fleet-"+which))
	if err != nil {
		res.Err = fmt.Errorf("the rig did not come up: %v", err)
		return res
	}
	defer rig.Down()
	fmt.Printf("    rig up in %s\n", secs(time.Since(t)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := rig.Watch(ctx)

	// The nodes, before the scheduler starts: it then begins from a whole fleet, as a
	// scheduler restarted on a running cluster would.
	capacity, made, ready, err := rig.addFleet("fleet-n", cfg.Nodes)
	if err != nil {
		res.Err = err
		return res
	}

	// Queues as the queues test makes them, Open before any job names them.
	for q, w := range map[string]int{"q3": 3, "q1": 1} {
		if err := rig.Create("/apis/scheduling.volcano.sh/v1beta1/queues", queueObj(q, w)); err != nil {
			res.Err = err
			return res
		}
	}
	if err := waitFor(30*time.Second, "queues q3, q1 Open (queue controller)", func() (bool, string) {
		var a, c Queue
		rig.Get("/apis/scheduling.volcano.sh/v1beta1/queues/q3", &a)
		rig.Get("/apis/scheduling.volcano.sh/v1beta1/queues/q1", &c)
		return a.Status.State == "Open" && c.Status.State == "Open", a.Status.State + " " + c.Status.State
	}); err != nil {
		res.Err = err
		return res
	}
	for _, ns := range []string{fleetNS, "fleet-warmup"} {
		if err := rig.Namespace(ns); err != nil {
			res.Err = err
			return res
		}
	}

	m, err := startMetered(ctx, rig, which)
	if err != nil {
		res.Err = err
		return res
	}
	sched, tSched := m.Sched, m.Start

	// A warm-up job: the figures start once the scheduler has its caches and places a
	// pod, not with its start-up (listing the fleet) in the first jobs' latency.
	if err := rig.SubmitJob("fleet-warmup", JobSpec{Name: "warmup", Queue: "default", MinAvailable: 1,
		Tasks: []Task{{Name: "t", Replicas: 1, Min: 1, CPU: "1", RunFor: "1s"}}}); err != nil {
		res.Err = err
		return res
	}
	if _, err := waitPods(h, "fleet-warmup", 1, 3*time.Minute, "Running", running); err != nil {
		res.Err = fmt.Errorf("%v\n%s's log ends:\n%s", err, which, sched.Tail(15))
		return res
	}
	warm := time.Since(tSched)
	fmt.Printf("    %s started; the warm-up pod Running %s later\n", which, secs(warm))

	// The jobs, each at its time; a slow POST delays no other (up to 16 at once).
	t0 := time.Now()
	submitted := make(map[string]time.Time, len(jobs))
	var subMu sync.Mutex
	var lag time.Duration
	var subErr error
	sem := make(chan struct{}, 16)
	launched := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		defer func() { wg.Wait(); close(launched) }()
		for _, j := range jobs {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(t0.Add(j.At))):
			}
			sem <- struct{}{}
			wg.Add(1)
			go func(j fleetJob) {
				defer func() { <-sem; wg.Done() }()
				now := time.Now()
				subMu.Lock()
				submitted[j.Name] = now
				lag = max(lag, now.Sub(t0.Add(j.At)))
				subMu.Unlock()
				err := rig.SubmitJob(fleetNS, JobSpec{Name: j.Name, Queue: j.Queue, MinAvailable: j.Pods,
					Tasks: []Task{{Name: "worker", Replicas: j.Pods, Min: j.Pods,
						CPU: strconv.Itoa(j.CPU), RunFor: fmt.Sprintf("%dms", j.RunFor.Milliseconds())}}})
				if err != nil {
					subMu.Lock()
					if subErr == nil {
						subErr = fmt.Errorf("%s: %v", j.Name, err)
					}
					subMu.Unlock()
				}
			}(j)
		}
	}()

	// Until every pod has finished, or arrival + 300 s (the last job's pods need 120 s
	// and their time to be made and placed): a timeout still gives figures.
	deadline := t0.Add(cfg.Arrival + 300*time.Second)
	timedOut := false
	nextReport := t0.Add(30 * time.Second)
	for {
		pods := h.Pods(fleetNS)
		fin := 0
		for _, p := range pods {
			if !p.Finished.IsZero() {
				fin++
			}
		}
		if fin >= cfg.Pods {
			break
		}
		if !sched.Running() {
			res.Err = fmt.Errorf("%s exited:\n%s", which, sched.Tail(20))
			break
		}
		if time.Now().After(deadline) {
			timedOut = true
			break
		}
		if time.Now().After(nextReport) {
			nextReport = nextReport.Add(30 * time.Second)
			bnd, run := 0, 0
			for _, p := range pods {
				if !p.Bound.IsZero() {
					bnd++
				}
				if !p.Running.IsZero() && p.Finished.IsZero() {
					run++
				}
			}
			subMu.Lock()
			ns := len(submitted)
			subMu.Unlock()
			fmt.Printf("    +%3.0fs: jobs submitted %d/%d; pods made %d, bound %d, running %d, finished %d; load %s\n",
				time.Since(t0).Seconds(), ns, len(jobs), len(pods), bnd, run, fin, loadavg())
		}
		time.Sleep(time.Second)
	}
	tEnd := time.Now()

	use := m.Read() // before the scheduler stops
	sched.Stop()
	cancel()
	<-launched
	if subErr != nil && res.Err == nil {
		res.Err = fmt.Errorf("submitting: %v", subErr)
	}

	// The figures, from the pod history.
	pods := h.Pods(fleetNS)
	var toRunning, toMade, toBound, boundToRunning []time.Duration
	var binds []time.Time
	nBound, nRunning, nFinished := 0, 0, 0
	for _, p := range pods {
		sub, ok := submitted[p.Job]
		if !ok {
			continue
		}
		toMade = append(toMade, p.Created.Sub(sub))
		if !p.Bound.IsZero() {
			nBound++
			binds = append(binds, p.Bound)
			toBound = append(toBound, p.Bound.Sub(p.Created))
		}
		if !p.Running.IsZero() {
			if !p.Bound.IsZero() {
				boundToRunning = append(boundToRunning, p.Running.Sub(p.Bound))
			}
			nRunning++
			toRunning = append(toRunning, p.Running.Sub(sub))
		}
		if !p.Finished.IsZero() {
			nFinished++
		}
	}
	sort.Slice(binds, func(i, j int) bool { return binds[i].Before(binds[j]) })
	// Where the time before a pod exists goes: the job controller makes a job's PodGroup,
	// the scheduler's enqueue admits it (Inqueue), then the job controller makes the pods.
	inqueue := map[string]time.Time{}
	var toInqueue, inqueueToMade []time.Duration
	for _, pg := range h.PodGroupsIn(fleetNS) {
		job := strings.TrimPrefix(pg.Owner, "Job/")
		sub, ok := submitted[job]
		if !ok {
			continue
		}
		for i, ph := range pg.Phases {
			if ph == "Inqueue" {
				inqueue[job] = pg.Times[i]
				toInqueue = append(toInqueue, pg.Times[i].Sub(sub))
				break
			}
		}
	}
	for _, p := range pods {
		if t, ok := inqueue[p.Job]; ok {
			inqueueToMade = append(inqueueToMade, p.Created.Sub(t))
		}
	}

	res.row("nodes created; all Ready (KWOK) after", "%s; %s", secs(made), secs(ready))
	res.row("scheduler start -> warm-up pod Running", "%s", secs(warm))
	res.row("jobs submitted; latest behind schedule", "%d of %d; %s", len(submitted), len(jobs), secs(lag))
	end := "all finished"
	if timedOut {
		end = fmt.Sprintf("timed out (%s)", cfg.Arrival+300*time.Second)
	}
	res.row("first submission -> last pod finished", "%s (%s)", secs(tEnd.Sub(t0)), end)
	res.row("pods made / bound / Running / finished", "%d / %d / %d / %d", len(pods), nBound, nRunning, nFinished)
	res.row("pods never bound", "%d", max(cfg.Pods-nBound, 0))
	res.row("submitted -> Running: median / p90 / p99 / max", "%s", quantiles(toRunning, 0.5, 0.9, 0.99, 1))
	res.row("submitted -> pod made (controller, enqueue): median / p99", "%s", quantiles(toMade, 0.5, 0.99))
	res.row("submitted -> PodGroup Inqueue (per job): median / p99", "%s", quantiles(toInqueue, 0.5, 0.99))
	res.row("PodGroup Inqueue -> pod made (job controller): median / p99", "%s", quantiles(inqueueToMade, 0.5, 0.99))
	res.row("pod made -> bound: median / p99", "%s", quantiles(toBound, 0.5, 0.99))
	res.row("bound -> Running (KWOK): median / p99", "%s", quantiles(boundToRunning, 0.5, 0.99))
	if len(binds) > 1 {
		span := binds[len(binds)-1].Sub(binds[0])
		peak := 0
		for i, k := 0, 0; i < len(binds); i++ {
			for k < len(binds) && binds[k].Sub(binds[i]) < 10*time.Second {
				k++
			}
			peak = max(peak, k-i)
		}
		res.row("binds/s: mean first to last bind; peak 10 s", "%.1f over %s; %.1f", float64(len(binds)-1)/span.Seconds(), secs(span), float64(peak)/10)
	}
	use.schedRows(res)
	use.rigRows(res)
	if err := h.CheckCapacity(fleetNS, capacity); err != nil {
		res.row("nodes overcommitted", "%v", err)
	} else {
		res.row("nodes overcommitted", "none")
	}
	return res
}

// addFleet makes n KWOK nodes of fleetNodeCPU cpu and 32Gi, named prefix00000 on (16 POSTs
// at a time), and waits until KWOK has made them all Ready; returns each node's cpu in
// millicores (for History.CheckCapacity), the time to create them and the time until all
// were Ready.
func (r *Rig) addFleet(prefix string, n int) (capacity map[string]int, made, ready time.Duration, err error) {
	t := time.Now()
	names := make([]string, n)
	capacity = map[string]int{}
	for i := range names {
		names[i] = fmt.Sprintf("%s%05d", prefix, i)
		capacity[names[i]] = fleetNodeCPU * 1000
	}
	if err := parallel(16, len(names), func(i int) error {
		return r.Create("/api/v1/nodes", nodeObj(names[i], strconv.Itoa(fleetNodeCPU), "32Gi"))
	}); err != nil {
		return nil, 0, 0, err
	}
	made = time.Since(t)
	// Ready as KWOK's node-initialize stage makes them: one list of all nodes every 2 s
	// (one GET per node would be thousands of requests a round).
	if err := waitForEvery(2*time.Second, 15*time.Minute, "KWOK to make the fleet's nodes Ready", func() (bool, string) {
		k, err := r.readyNodes(strconv.Itoa(fleetNodeCPU))
		if err != nil {
			return false, err.Error()
		}
		return k >= n, fmt.Sprintf("%d of %d Ready", k, n)
	}); err != nil {
		return nil, 0, 0, err
	}
	ready = time.Since(t)
	fmt.Printf("    %d nodes created in %s, all Ready after %s\n", n, secs(made), secs(ready))
	return capacity, made, ready, nil
}

// schedMeter: what the benchmarks read from /proc about a scheduler and the rest of its rig:
// the scheduler's CPU from its start (a new process), the others' from just before it,
// its peak RSS, and the peak proportional set size of its process tree sampled every 2 s.
type schedMeter struct {
	Sched     *Proc
	Start     time.Time // just before the scheduler's process was started
	LoadStart string    // the load average then (1/5/15 min)
	rig       *Rig
	cpu0      map[string]float64
	mu        sync.Mutex
	peakPss   int
}

// startMetered starts the scheduler `which` on rig, metered; the sampling of its memory
// ends with ctx or with the scheduler.
func startMetered(ctx context.Context, rig *Rig, which string) (*schedMeter, error) {
	// The rest of the rig's CPU is counted from here (making nodes and pods is not the
	// scheduler's work).
	m := &schedMeter{rig: rig, cpu0: map[string]float64{}, LoadStart: loadavg()}
	for _, p := range rig.Procs() {
		m.cpu0[p.Name], _ = procCPU(p.Pid())
	}
	m.cpu0["driver"], _ = procCPU(os.Getpid())
	m.Start = time.Now()
	sched, err := rig.StartScheduler(which)
	if err != nil {
		return nil, err
	}
	m.Sched = sched
	// The memory of the scheduler's process tree (Caldera forks a worker per session),
	// sampled: proportional set sizes, so the pages a worker shares with its parent
	// count once.
	go func() {
		for ctx.Err() == nil && sched.Running() {
			if kb := treePss(sched.Pid()); kb > 0 {
				m.mu.Lock()
				m.peakPss = max(m.peakPss, kb)
				m.mu.Unlock()
			}
			time.Sleep(2 * time.Second)
		}
	}()
	return m, nil
}

// procUse: a schedMeter's reading.
type procUse struct {
	schedCPU float64 // seconds, its session workers' included
	wall     float64 // seconds since the scheduler started
	hwm, pss int     // kB: its peak RSS; the peak PSS of its process tree
	others   []string
	load     string
}

// Read takes the figures; call it before the scheduler stops (its /proc goes with it).
func (m *schedMeter) Read() procUse {
	u := procUse{wall: time.Since(m.Start).Seconds(), load: loadavg()}
	// A session worker still running has not been reaped: its CPU is its own.
	for _, pid := range append([]int{m.Sched.Pid()}, children(m.Sched.Pid())...) {
		c, _ := procCPU(pid)
		u.schedCPU += c
	}
	u.hwm = procStatusKB(m.Sched.Pid(), "VmHWM")
	cpu := map[string]float64{}
	for _, p := range m.rig.Procs() {
		cpu[p.Name], _ = procCPU(p.Pid())
	}
	cpu["driver"], _ = procCPU(os.Getpid())
	for _, n := range []string{"kube-apiserver", "etcd", "kwok", "vc-controller-manager", "kube-controller-manager", "driver"} {
		if _, ok := cpu[n]; ok {
			u.others = append(u.others, fmt.Sprintf("%s %.0f", n, cpu[n]-m.cpu0[n]))
		}
	}
	// One last sample: a run shorter than the sampling period would have none but the
	// first, taken as the scheduler started.
	m.mu.Lock()
	u.pss = max(m.peakPss, treePss(m.Sched.Pid()))
	m.mu.Unlock()
	return u
}

// schedRows: the scheduler's CPU and memory, as rows of res.
func (u procUse) schedRows(res *BenchResult) {
	res.row("scheduler CPU (user+sys, with its session workers)", "%.1f s (%.0f%% of a core over %.0f s)", u.schedCPU, 100*u.schedCPU/u.wall, u.wall)
	res.row("scheduler peak RSS (VmHWM); peak PSS of its process tree", "%s; %s", mib(u.hwm), mib(u.pss))
}

// rigRows: the rest of the rig's CPU over the same span and the load at the end.
func (u procUse) rigRows(res *BenchResult) {
	res.row("CPU s of the others over the same span", "%s", strings.Join(u.others, ", "))
	res.row("load average at the end (1/5/15 min)", "%s", u.load)
}

// parallel runs f(0..n-1) on k goroutines; the first error.
func parallel(k, n int, f func(i int) error) error {
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < k; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// waitForEvery: waitFor with its own polling interval (for costly checks).
func waitForEvery(every, d time.Duration, what string, f func() (bool, string)) error {
	deadline := time.Now().Add(d)
	for {
		ok, s := f()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s; last state: %s", d, what, s)
		}
		time.Sleep(every)
	}
}

// readyNodes: how many nodes are Ready with the given allocatable cpu (KWOK keeps the
// capacity a node is made with).
func (r *Rig) readyNodes(cpu string) (int, error) {
	var l struct {
		Items []struct {
			Status struct {
				Conditions  []struct{ Type, Status string }
				Allocatable map[string]string
			}
		}
	}
	if err := r.Get("/api/v1/nodes", &l); err != nil {
		return 0, err
	}
	n := 0
	for _, it := range l.Items {
		for _, c := range it.Status.Conditions {
			if c.Type == "Ready" && c.Status == "True" && it.Status.Allocatable["cpu"] == cpu {
				n++
			}
		}
	}
	return n, nil
}

// procCPU: a process's user+system CPU seconds, with those of the children it has
// waited for (Caldera's session workers), from /proc/PID/stat.
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// After "pid (comm) ": state is field 3; utime, stime, cutime, cstime are 14 to 17.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	ticks := 0.0
	for _, x := range f[11:15] {
		v, _ := strconv.ParseFloat(x, 64)
		ticks += v
	}
	return ticks / 100, nil // USER_HZ: 100 on Linux, whatever the kernel's HZ
}

// procStatusKB: a "Name:   N kB" line of /proc/PID/status.
func procStatusKB(pid int, name string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, name+":") {
			v, _ := strconv.Atoi(strings.Fields(strings.TrimPrefix(l, name+":"))[0])
			return v
		}
	}
	return 0
}

// treePss: the proportional set size (kB) of pid and its children, from smaps_rollup.
func treePss(pid int) int {
	kb := 0
	for _, p := range append([]int{pid}, children(pid)...) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Pss:") {
				v, _ := strconv.Atoi(strings.Fields(strings.TrimPrefix(l, "Pss:"))[0])
				kb += v
			}
		}
	}
	return kb
}

func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " / ")
}

func mib(kb int) string { return fmt.Sprintf("%.0f MiB", float64(kb)/1024) }

// quantiles: "a / b / ..." of ds at each q (nearest rank; 1 is the maximum).
func quantiles(ds []time.Duration, qs ...float64) string {
	if len(ds) == 0 {
		return "-"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var out []string
	for _, q := range qs {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		i = min(max(i, 0), len(s)-1)
		out = append(out, secs(s[i]))
	}
	return strings.Join(out, " / ")
}
