package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A gang of 4 x 2 cpu waits, unbound, while only 2 cpu are free, and is bound whole once
// 8 are; its PodGroup goes Inqueue -> Running with Unschedulable then Scheduled conditions,
// its pods carry a Scheduled event once bound, PodScheduled=False and a FailedScheduling
// event with the gang plugin's reason while waiting, and the default queue's status counts
// the PodGroups and the cpu allocated.
func testGang(e *Env) error {
	ns := "gang"
	nodes := []string{"gang-n1", "gang-n2"}
	defer cleanup(e, ns, nodes, nil)
	e.Namespace(ns)
	for _, n := range nodes {
		if err := e.Create("/api/v1/nodes", Node(n, "4", "16Gi", map[string]string{"test": "gang"})); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	// As volcano-scheduler's image with the arguments of Volcano's Helm chart at its
	// defaults (installer/helm/chart/volcano/templates/scheduler.yaml at ed72c7c), Go's
	// spellings included ("--flag=true", "-v=N", the literal "2>&1"); only the config's
	// path and the two listen addresses (free ports) are the test's.
	metricsPort, healthzPort := freePort(), freePort()
	c, readOnly, err := e.StartVcScheduler("gang", e.Kubeconfig("gang", false, 0),
		"--logtostderr", "--scheduler-conf="+e.Config, "--enable-healthz=true",
		"--enable-metrics=true", "--leader-elect=false", "--kube-api-qps=2000",
		"--kube-api-burst=2000", "--schedule-period=1s", "--node-worker-threads=20",
		fmt.Sprintf("--listen-address=127.0.0.1:%d", metricsPort),
		fmt.Sprintf("--healthz-address=127.0.0.1:%d", healthzPort), "-v=3", "2>&1")
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 30*time.Second); err != nil {
		return err
	}
	if readOnly {
		fmt.Println("    (caldera runs with every mount read-only: plugins load from memory files)")
	} else {
		fmt.Println("    NOTE: no mount namespace here (not root): the read-only root is not tried")
	}
	if err := checkHealth(healthzPort); err != nil {
		return err
	}

	// Job a: 3 x 2 cpu, minMember 3: fits (6 of 8 cpu).
	if err := e.CreatePodGroup(ns, "a", "default", 3, ""); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("a-%d", i), PodOpts{PodGroup: "a", CPU: "2"}); err != nil {
			return err
		}
	}
	if _, err := waitBound(e, ns, "a-", 3, 20*time.Second); err != nil {
		return err
	}
	// Each bound pod gets Volcano's Normal "Scheduled" event.
	err = WaitFor(15*time.Second, "a Scheduled event per bound pod of a", func() (bool, string) {
		evs, err := e.Events(ns)
		if err != nil {
			return false, err.Error()
		}
		seen := map[string]bool{}
		for _, ev := range evs {
			if ev.Reason == "Scheduled" && ev.Type == "Normal" &&
				strings.HasPrefix(ev.Message, "Successfully assigned "+ns+"/"+ev.InvolvedObject.Name+" to gang-n") {
				seen[ev.InvolvedObject.Name] = true
			}
		}
		return len(seen) == 3, fmt.Sprintf("%v", seen)
	})
	if err != nil {
		return err
	}
	if err := checkMetrics(metricsPort, ns); err != nil {
		return err
	}
	// Job b: 4 x 2 cpu, minMember 4: only 2 cpu free, so none of it may be bound.
	if err := e.CreatePodGroup(ns, "b", "default", 4, ""); err != nil {
		return err
	}
	for i := 0; i < 4; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("b-%d", i), PodOpts{PodGroup: "b", CPU: "2"}); err != nil {
			return err
		}
	}
	err = WaitFor(20*time.Second, "PodGroup b Unschedulable with the gang reason", func() (bool, string) {
		pg, err := e.PodGroup(ns, "b")
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range pg.Status.Conditions {
			if cond.Type == "Unschedulable" && strings.Contains(cond.Message, "tasks in gang unschedulable") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", pg.Status)
	})
	if err != nil {
		return err
	}
	time.Sleep(3 * time.Second) // several more sessions: still nothing of b may be bound
	if b, err := bound(e, ns, "b-"); err != nil || len(b) != 0 {
		return errorf("gang b partly bound while it cannot run whole: %v %v", b, err)
	}
	pga, err := e.PodGroup(ns, "a")
	if err != nil {
		return err
	}
	if pga.Status.Phase != "Running" {
		return errorf("PodGroup a phase %q, want Running", pga.Status.Phase)
	}
	pgb, _ := e.PodGroup(ns, "b")
	if pgb.Status.Phase != "Inqueue" {
		return errorf("PodGroup b phase %q, want Inqueue", pgb.Status.Phase)
	}
	// The pods: PodScheduled=False and a FailedScheduling event with the plugin's reason.
	// One of b's tasks is left Pipelined on the 2 free cpu, as Volcano v1.12 leaves it: the
	// preempt action's second phase (preemption within the job) finds no victims, but
	// util.ValidateVictims accepts none ("Victims should not be judged to be empty here")
	// and the task fits the node's future idle, so it is pipelined and that statement is
	// committed whether or not the job is pipelined (preempt.go). A pipelined task is never
	// bound; Volcano's RecordJobStatusEvent still gives it PodScheduled=False and a
	// FailedScheduling event, with JobInfo.TaskSchedulingReason's words for a pipelined
	// task. The three others, never tried, carry the job's FitError() (Volcano's
	// RecordJobStatusEvent), as writes-as-volcano-scheduler checks against Volcano itself.
	err = WaitFor(15*time.Second, "PodScheduled=False and FailedScheduling events on b's pods", func() (bool, string) {
		pods, err := e.Pods(ns)
		if err != nil {
			return false, err.Error()
		}
		gangConds, pipelinedConds := 0, 0
		seen := []string{}
		for _, p := range pods {
			if !strings.HasPrefix(p.Metadata.Name, "b-") {
				continue
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type != "PodScheduled" {
					continue
				}
				seen = append(seen, fmt.Sprintf("%s: %s %s %q", p.Metadata.Name, cond.Status, cond.Reason, cond.Message))
				if cond.Status != "False" || cond.Reason != "Unschedulable" {
					continue
				}
				if cond.Message == "pod group is not ready, 1 Pipelined, 3 Pending, 4 minAvailable; Pending: 3 Unschedulable" {
					gangConds++
				}
				if cond.Message == "Pod gang/"+p.Metadata.Name+" can possibly be assigned to gang-n2, once resource is released and minAvailable is satisfied" ||
					cond.Message == "Pod gang/"+p.Metadata.Name+" can possibly be assigned to gang-n1, once resource is released and minAvailable is satisfied" {
					pipelinedConds++
				}
			}
		}
		evs, err := e.Events(ns)
		if err != nil {
			return false, err.Error()
		}
		gangEvents, pipelinedEvents, pgEvents := 0, 0, 0
		for _, ev := range evs {
			if ev.Reason == "FailedScheduling" && ev.Type == "Warning" && strings.HasPrefix(ev.InvolvedObject.Name, "b-") {
				if strings.HasPrefix(ev.Message, "pod group is not ready, ") {
					gangEvents++
				}
				if strings.Contains(ev.Message, "once resource is released and minAvailable is satisfied") {
					pipelinedEvents++
				}
			}
			if ev.InvolvedObject.Kind == "PodGroup" && ev.InvolvedObject.Name == "b" && ev.Reason == "Unschedulable" {
				pgEvents++
			}
		}
		return gangConds == 3 && pipelinedConds == 1 && gangEvents >= 3 && pipelinedEvents >= 1 && pgEvents >= 1,
			fmt.Sprintf("%d gang conditions, %d pipelined, %d gang events, %d pipelined, %d PodGroup events; %s",
				gangConds, pipelinedConds, gangEvents, pipelinedEvents, pgEvents, strings.Join(seen, "; "))
	})
	if err != nil {
		return err
	}
	// Queue status: a Running, b Inqueue, 6 cpu allocated.
	err = WaitFor(10*time.Second, "default queue status", func() (bool, string) {
		q, err := e.Queue("default")
		if err != nil {
			return false, err.Error()
		}
		return q.Status.Running == 1 && q.Status.Inqueue == 1 && milli(q.Status.Allocated["cpu"]) == 6000 &&
			q.Status.State == "Open", fmt.Sprintf("%+v", q.Status)
	})
	if err != nil {
		return err
	}

	// a finishes: b gets the whole 8 cpu, all at once.
	for i := 0; i < 3; i++ {
		e.Delete(fmt.Sprintf("/api/v1/namespaces/%s/pods/a-%d", ns, i))
	}
	b, err := waitBound(e, ns, "b-", 4, 20*time.Second)
	if err != nil {
		return err
	}
	per := map[string]int{}
	for _, n := range b {
		per[n]++
	}
	if per["gang-n1"] != 2 || per["gang-n2"] != 2 {
		return errorf("gang b placed %v, want 2 per node", per)
	}
	return WaitFor(10*time.Second, "PodGroup b Running and Scheduled", func() (bool, string) {
		pg, err := e.PodGroup(ns, "b")
		if err != nil {
			return false, err.Error()
		}
		scheduled := false
		for _, cond := range pg.Status.Conditions {
			scheduled = scheduled || (cond.Type == "Scheduled" && cond.Status == "True")
		}
		return pg.Status.Phase == "Running" && scheduled && pg.Status.Running == 4, fmt.Sprintf("%+v", pg.Status)
	})
}

// Two queues of weight 3 and 1 that both want the whole cluster (8 cpu): 6 and 2.
func testQueues(e *Env) error {
	ns := "queues"
	nodes := []string{"q-n1", "q-n2"}
	queues := []string{"heavy", "light"}
	defer cleanup(e, ns, nodes, queues)
	e.Namespace(ns)
	for _, n := range nodes {
		if err := e.Create("/api/v1/nodes", Node(n, "4", "16Gi", nil)); err != nil {
			return err
		}
	}
	if err := e.Create("/apis/scheduling.volcano.sh/v1beta1/queues", QueueObj("heavy", 3)); err != nil {
		return err
	}
	if err := e.Create("/apis/scheduling.volcano.sh/v1beta1/queues", QueueObj("light", 1)); err != nil {
		return err
	}
	for _, q := range queues {
		for i := 0; i < 8; i++ {
			name := fmt.Sprintf("%s-%d", q, i)
			if err := e.CreatePodGroup(ns, name, q, 1, ""); err != nil {
				return err
			}
			if err := e.CreatePod(ns, name, PodOpts{PodGroup: name, CPU: "1"}); err != nil {
				return err
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	c, err := e.StartCaldera("queues", e.Kubeconfig("queues", false, 0))
	if err != nil {
		return err
	}
	defer c.Stop()
	all, err := waitBound(e, ns, "", 8, 30*time.Second)
	if err != nil {
		return err
	}
	time.Sleep(3 * time.Second) // more sessions change nothing: the cluster is full
	all, _ = bound(e, ns, "")
	heavy, light := 0, 0
	for name := range all {
		if strings.HasPrefix(name, "heavy-") {
			heavy++
		} else {
			light++
		}
	}
	if heavy != 6 || light != 2 {
		return errorf("queues got heavy=%d light=%d pods, want 6 and 2 (weights 3:1 of 8 cpu)", heavy, light)
	}
	return WaitFor(10*time.Second, "queue status", func() (bool, string) {
		h, err1 := e.Queue("heavy")
		l, err2 := e.Queue("light")
		if err1 != nil || err2 != nil {
			return false, fmt.Sprint(err1, err2)
		}
		ok := h.Status.Running == 6 && l.Status.Running == 2 &&
			milli(h.Status.Allocated["cpu"]) == 6000 && milli(l.Status.Allocated["cpu"]) == 2000 &&
			h.Status.Inqueue+h.Status.Pending == 2 && l.Status.Inqueue+l.Status.Pending == 6
		return ok, fmt.Sprintf("heavy %+v; light %+v", h.Status, l.Status)
	})
}

// A high-priority gang preempts low-priority pods through the Eviction API; pods that a
// PodDisruptionBudget protects are not evicted (the API answers 429) and stay running,
// which a plain delete would not have respected.
func testPreempt(e *Env) error {
	ns := "preempt"
	nodes := []string{"p-n1"}
	defer cleanup(e, ns, nodes, nil)
	e.Namespace(ns)
	if err := e.Create("/api/v1/nodes", Node("p-n1", "4", "16Gi", nil)); err != nil {
		return err
	}
	if err := e.Create(fmt.Sprintf("/apis/policy/v1/namespaces/%s/poddisruptionbudgets", ns), map[string]any{
		"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
		"metadata": map[string]any{"name": "protect"},
		"spec": map[string]any{"minAvailable": 2,
			"selector": map[string]any{"matchLabels": map[string]any{"protected": "yes"}}},
	}); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	c, err := e.StartCaldera("preempt", e.Kubeconfig("preempt", false, 0))
	if err != nil {
		return err
	}
	defer c.Stop()
	// Fill the node: two unprotected low pods (priority 10), two protected mid pods (20).
	for i := 0; i < 2; i++ {
		for _, v := range []struct{ name, pc, prot string }{{"low", "low", "no"}, {"mid", "mid", "yes"}} {
			name := fmt.Sprintf("%s-%d", v.name, i)
			if err := e.CreatePodGroup(ns, name, "default", 1, v.pc); err != nil {
				return err
			}
			if err := e.CreatePod(ns, name, PodOpts{PodGroup: name, CPU: "1", PriorityClass: v.pc,
				Labels: map[string]string{"volcano.sh/preemptable": "true", "protected": v.prot}}); err != nil {
				return err
			}
		}
	}
	if _, err := waitBound(e, ns, "", 4, 30*time.Second); err != nil {
		return err
	}
	// A gang of 2 x 1 cpu at priority 1000.
	if err := e.CreatePodGroup(ns, "high", "default", 2, "high"); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("high-%d", i), PodOpts{PodGroup: "high", CPU: "1", PriorityClass: "high"}); err != nil {
			return err
		}
	}
	if _, err := waitBound(e, ns, "high-", 2, 40*time.Second); err != nil {
		return errorf("%v\ncaldera:\n%s", err, tail(c.Output(), 15))
	}
	pods, err := e.Pods(ns)
	if err != nil {
		return err
	}
	left := map[string]bool{}
	for _, p := range pods {
		left[p.Metadata.Name] = true
		if strings.HasPrefix(p.Metadata.Name, "mid-") && p.Metadata.DeletionTimestamp != nil {
			return errorf("protected pod %s is being deleted", p.Metadata.Name)
		}
	}
	if left["low-0"] || left["low-1"] || !left["mid-0"] || !left["mid-1"] {
		return errorf("after preemption pods %v remain; want the low pods evicted and the mid pods kept", left)
	}
	// One more high pod: only protected pods could make room; the Eviction API refuses.
	if err := e.CreatePodGroup(ns, "high2", "default", 1, "high"); err != nil {
		return err
	}
	if err := e.CreatePod(ns, "high2-0", PodOpts{PodGroup: "high2", CPU: "1", PriorityClass: "high"}); err != nil {
		return err
	}
	if err := c.WaitLog("refused for now by a PodDisruptionBudget", 30*time.Second); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	pods, _ = e.Pods(ns)
	for _, p := range pods {
		if strings.HasPrefix(p.Metadata.Name, "mid-") && p.Metadata.DeletionTimestamp != nil {
			return errorf("protected pod %s was deleted despite its PodDisruptionBudget", p.Metadata.Name)
		}
		if p.Metadata.Name == "high2-0" && p.Spec.NodeName != "" {
			return errorf("high2-0 bound to %s, but there is no room", p.Spec.NodeName)
		}
	}
	// The same with --evict-mode delete: a plain delete does not ask the budget, so one
	// protected pod goes and high2-0 takes its place.
	c.Stop()
	d, err := e.StartCaldera("preempt-delete", e.Kubeconfig("preempt-delete", false, 0), "--evict-mode", "delete")
	if err != nil {
		return err
	}
	defer d.Stop()
	if _, err := waitBound(e, ns, "high2-", 1, 30*time.Second); err != nil {
		return errorf("%v\ncaldera:\n%s", err, tail(d.Output(), 15))
	}
	pods, _ = e.Pods(ns)
	mids := 0
	for _, p := range pods {
		if strings.HasPrefix(p.Metadata.Name, "mid-") && p.Metadata.DeletionTimestamp == nil {
			mids++
		}
	}
	if mids != 1 {
		return errorf("%d protected pods left after a preemption by delete, want 1", mids)
	}
	return nil
}

// The API server is killed while a gang is being bound; while it is down a second API
// server (same etcd) deletes a node and adds another, and a job arrives for the new one.
// After the restart Caldera resumes (watch or relist), binds every pod exactly once and
// never to the deleted node, and no node holds more than it has.
func testRestart(e *Env) error {
	ns := "restart"
	nodes := []string{"r-n1", "r-n2", "r-n3", "r-n5"}
	defer func() { e.base = 0; cleanup(e, ns, nodes, nil) }()
	e.Namespace(ns)
	for _, n := range []struct{ name, zone string }{{"r-n1", "a"}, {"r-n2", "a"}, {"r-n3", "doomed"}} {
		if err := e.Create("/api/v1/nodes", Node(n.name, "4", "16Gi", map[string]string{"zone": n.zone})); err != nil {
			return err
		}
	}
	if err := e.StartAPIServer(1); err != nil {
		return err
	}
	defer e.KillAPIServer(1)
	c, err := e.StartCaldera("restart", e.Kubeconfig("restart", false, 0))
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 30*time.Second); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.base = 1 // the driver and its kubelet go through the second API server from now on
	e.Kubelet(ctx, ns)
	// 160 single-pod jobs of 50m (8 cpu in all, what zone a has): binds go out 64 at a
	// time, so killing the server at the first one seen cuts some of them off.
	const r1 = 160
	if err := parallel(r1, 16, func(i int) error {
		name := fmt.Sprintf("r1-%03d", i)
		if err := e.CreatePodGroup(ns, name, "default", 1, ""); err != nil {
			return err
		}
		return e.CreatePod(ns, name, PodOpts{PodGroup: name, CPU: "50m",
			NodeSelector: map[string]string{"zone": "a"}})
	}); err != nil {
		return err
	}
	// Kill the API server Caldera talks to as soon as the first bind lands.
	if _, err := waitBound(e, ns, "r1-", 1, 20*time.Second); err != nil {
		return err
	}
	e.KillAPIServer(0)
	before, _ := bound(e, ns, "r1-")
	if err := e.Delete("/api/v1/nodes/r-n3"); err != nil {
		return err
	}
	if err := e.Create("/api/v1/nodes", Node("r-n5", "4", "16Gi", map[string]string{"zone": "doomed"})); err != nil {
		return err
	}
	if err := e.CreatePodGroup(ns, "r2", "default", 4, ""); err != nil {
		return err
	}
	for i := 0; i < 4; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("r2-%d", i), PodOpts{PodGroup: "r2", CPU: "1",
			NodeSelector: map[string]string{"zone": "doomed"}}); err != nil {
			return err
		}
	}
	time.Sleep(3 * time.Second)
	if err := e.StartAPIServer(0); err != nil {
		return err
	}
	if _, err := waitBound(e, ns, "r1-", r1, 60*time.Second); err != nil {
		return errorf("%v\ncaldera:\n%s", err, tail(c.Output(), 20))
	}
	r2, err := waitBound(e, ns, "r2-", 4, 60*time.Second)
	if err != nil {
		return errorf("%v\ncaldera:\n%s", err, tail(c.Output(), 20))
	}
	for p, n := range r2 {
		if n != "r-n5" {
			return errorf("pod %s bound to %s: Caldera did not see r-n3 deleted while it was cut off", p, n)
		}
	}
	if err := overcommitted(e, ns, map[string]int{"r-n1": 4000, "r-n2": 4000, "r-n5": 4000}); err != nil {
		return err
	}
	fmt.Printf("    %d of %d r1 pods were bound when the API server was killed\n", len(before), r1)
	time.Sleep(2 * time.Second)
	if !c.Running() {
		return errorf("caldera exited:\n%s", tail(c.Output(), 20))
	}
	c.Stop()
	// Every bind that Caldera sent was accepted once: none failed for good, none repeated
	// without a 409 that found the pod already bound where decided.
	out := c.Output()
	if !strings.Contains(out, "watching again") && !strings.Contains(out, "listed again") {
		return errorf("no sign of Caldera resuming after the restart:\n%s", tail(out, 20))
	}
	if strings.Contains(out, "failed: HTTP") {
		return errorf("a write failed for good:\n%s", grep(out, "failed: HTTP"))
	}
	return nil
}

// Two replicas with --leader-elect: one holds the Lease and schedules, the other waits;
// killing the leader (no release) hands over within the lease duration; a graceful stop
// releases the Lease at once.
func testLeader(e *Env) error {
	ns := "leader"
	nodes := []string{"l-n1"}
	defer cleanup(e, ns, nodes, nil)
	e.Namespace(ns)
	if err := e.Create("/api/v1/nodes", Node("l-n1", "8", "16Gi", nil)); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	// -v 3: each session logs a line, so a standby's log shows that it ran none.
	args := []string{"--v=3", "--leader-elect", "--leader-elect-resource-namespace", "kube-system",
		"--leader-elect-resource-name", "caldera-test",
		"--leader-elect-lease-duration", "4", "--leader-elect-renew-deadline", "3",
		"--leader-elect-retry-period", "1"}
	a, err := e.StartCaldera("replica-a", e.Kubeconfig("replica-a", false, 0), append(args, "--identity", "replica-a")...)
	if err != nil {
		return err
	}
	defer a.Stop()
	// Replica b authenticates with a client certificate instead of a token.
	b, err := e.StartCaldera("replica-b", e.Kubeconfig("replica-b", true, 0), append(args, "--identity", "replica-b")...)
	if err != nil {
		return err
	}
	defer b.Stop()
	holder := func() string { return e.LeaseHolder("kube-system", "caldera-test") }
	if err := WaitFor(20*time.Second, "a lease holder", func() (bool, string) { return holder() != "", "" }); err != nil {
		return err
	}
	first := holder()
	leader, standby := a, b
	if first == "replica-b" {
		leader, standby = b, a
	}
	if err := leader.WaitLog("initial sync done", 30*time.Second); err != nil {
		return err
	}
	if err := e.CreatePodGroup(ns, "j1", "default", 2, ""); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("j1-%d", i), PodOpts{PodGroup: "j1", CPU: "1"}); err != nil {
			return err
		}
	}
	if _, err := waitBound(e, ns, "j1-", 2, 20*time.Second); err != nil {
		return err
	}
	if !strings.Contains(leader.Output(), "leader/j1: bound 2 tasks on ") {
		return errorf("the leader %s did not log the binds:\n%s", leader.Name, tail(leader.Output(), 10))
	}
	if !strings.Contains(leader.Output(), "session ") {
		return errorf("the leader %s logged no session line at -v 3", leader.Name)
	}
	if strings.Contains(standby.Output(), "session ") {
		return errorf("the standby %s ran sessions:\n%s", standby.Name, grep(standby.Output(), "session "))
	}
	// Someone else takes the Lease (as a third replica would after a partition): the
	// leader stops scheduling at its next renewal, nobody schedules while the intruder's
	// lease is fresh, and one replica takes over once it is not renewed for its duration.
	const leasePath = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/caldera-test"
	var lease map[string]any
	if err := e.Get(leasePath, &lease); err != nil {
		return err
	}
	spec := lease["spec"].(map[string]any)
	spec["holderIdentity"] = "intruder"
	spec["leaseDurationSeconds"] = 5
	spec["renewTime"] = time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	if code, out, err := e.Do("PUT", leasePath, lease, ""); err != nil || code != 200 {
		return errorf("taking the lease: %d %s %v", code, out, err)
	}
	stolen := time.Now()
	if err := leader.WaitLog("no longer leading; scheduling stops", 5*time.Second); err != nil {
		return err
	}
	if err := e.CreatePod(ns, "j-stolen", PodOpts{CPU: "1"}); err != nil {
		return err
	}
	for time.Since(stolen) < 3500*time.Millisecond {
		if b, _ := bound(e, ns, "j-stolen"); len(b) != 0 {
			return errorf("j-stolen bound %.1fs after the lease was taken by another holder", time.Since(stolen).Seconds())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := waitBound(e, ns, "j-stolen", 1, 20*time.Second); err != nil {
		return errorf("%v: no replica took the lease over after the intruder's expired", err)
	}
	if h := holder(); h == standby.Name {
		leader, standby = standby, leader
	} else if h != leader.Name {
		return errorf("lease held by %q after the intruder's expired", h)
	}
	// Kill the leader without releasing: the standby takes over after the lease expires.
	killed := time.Now()
	leader.Kill()
	if err := WaitFor(20*time.Second, "the standby to take the lease", func() (bool, string) {
		h := holder()
		return h == standby.Name, "holder " + h
	}); err != nil {
		return err
	}
	took := time.Since(killed)
	if took > 12*time.Second {
		return errorf("takeover took %v, lease duration is 4s", took)
	}
	if err := e.CreatePodGroup(ns, "j2", "default", 2, ""); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("j2-%d", i), PodOpts{PodGroup: "j2", CPU: "1"}); err != nil {
			return err
		}
	}
	if _, err := waitBound(e, ns, "j2-", 2, 20*time.Second); err != nil {
		return err
	}
	if !strings.Contains(standby.Output(), "leader/j2: bound 2 tasks on ") {
		return errorf("the new leader %s did not log the binds:\n%s", standby.Name, tail(standby.Output(), 10))
	}
	// A graceful stop releases the lease.
	standby.Stop()
	if h := holder(); h != "" {
		return errorf("lease still held by %q after a graceful stop", h)
	}
	return nil
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// /healthz and /readyz answer 200 "ok" once the cache is synced.
func checkHealth(port int) error {
	for _, path := range []string{"/healthz", "/readyz"} {
		err := WaitFor(10*time.Second, path+" 200 ok", func() (bool, string) {
			code, body, err := httpGet(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
			if err != nil {
				return false, err.Error()
			}
			return code == 200 && body == "ok\n", fmt.Sprintf("%d %q", code, body)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// /metrics carries Volcano's series for what was scheduled: job a's 3 binds of 2 cpu in
// queue "default", its sessions and its job latency.
func checkMetrics(port int, ns string) error {
	want := []string{
		`volcano_queue_allocated_milli_cpu{queue_name="default"} 6000`,
		`volcano_e2e_job_scheduling_duration{job_name="a",queue="default",job_namespace="` + ns + `"}`,
		`volcano_action_scheduling_latency_milliseconds_count{action="allocate"}`,
		`volcano_plugin_scheduling_latency_milliseconds_count{plugin="gang",OnSession="OnSessionOpen"}`,
		`volcano_task_scheduling_latency_milliseconds_count{stage="Bound"}`,
		"# TYPE volcano_e2e_scheduling_latency_milliseconds histogram",
	}
	return WaitFor(10*time.Second, "Volcano's metrics for job a", func() (bool, string) {
		code, body, err := httpGet(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
		if err != nil {
			return false, err.Error()
		}
		if code != 200 {
			return false, fmt.Sprintf("status %d", code)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false, "no " + w
			}
		}
		scheduled := 0
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, `volcano_schedule_attempts_total{result="scheduled"} `) {
				fmt.Sscanf(strings.TrimPrefix(line, `volcano_schedule_attempts_total{result="scheduled"} `), "%d", &scheduled)
			}
		}
		return scheduled >= 3, fmt.Sprintf("%d scheduled", scheduled)
	})
}

// Volcano's --node-selector: only the labelled node is scheduled on, and a node labelled
// later joins.
func testNodeSelector(e *Env) error {
	ns := "nodesel"
	nodes := []string{"sel-train", "sel-other"}
	defer cleanup(e, ns, nodes, nil)
	e.Namespace(ns)
	if err := e.Create("/api/v1/nodes", Node("sel-train", "4", "16Gi", map[string]string{"volcano.sh/role": "train"})); err != nil {
		return err
	}
	if err := e.Create("/api/v1/nodes", Node("sel-other", "64", "256Gi", map[string]string{"volcano.sh/role": "serving"})); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	dumps := e.path("nodesel-dumps")
	if err := os.MkdirAll(dumps, 0o755); err != nil {
		return err
	}
	c, err := e.StartCaldera("nodesel", e.Kubeconfig("nodesel", false, 0),
		"--node-selector=volcano.sh/role:train,volcano.sh/role:batch", "--cache-dump-dir="+dumps)
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 30*time.Second); err != nil {
		return err
	}
	// Three pods of 1 cpu: all on sel-train, though sel-other is emptier and bigger.
	for i := 0; i < 3; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("a-%d", i), PodOpts{CPU: "1"}); err != nil {
			return err
		}
	}
	b, err := waitBound(e, ns, "a-", 3, 20*time.Second)
	if err != nil {
		return err
	}
	for pod, node := range b {
		if node != "sel-train" {
			return errorf("%s bound to %s, a node --node-selector leaves out", pod, node)
		}
	}
	// SIGUSR1: the cache as a scenario file (Volcano's dumper on the same signal), which
	// runs as it stands: the node left out is not in it, the pods are bound.
	c.cmd.Process.Signal(syscall.SIGUSR1)
	if err := c.WaitLog("cache dump: "+dumps+"/snapshot-", 10*time.Second); err != nil {
		return err
	}
	files, _ := filepath.Glob(filepath.Join(dumps, "snapshot-*.toml"))
	if len(files) != 1 {
		return errorf("%d dump files in %s", len(files), dumps)
	}
	text, _ := os.ReadFile(files[0])
	if !strings.Contains(string(text), `name = "sel-train"`) || strings.Contains(string(text), `name = "sel-other"`) ||
		!strings.Contains(string(text), `node = "sel-train"`) {
		return errorf("the dump does not hold the cache as it is:\n%s", text)
	}
	out, err := exec.Command(e.CalderaBin, "scenario", "run", "--json", files[0]).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"binds":{}`) {
		return errorf("the dump does not run as a scenario (%v):\n%s", err, out)
	}
	// sel-other takes the second value: it joins, and a pod sel-train cannot hold goes there.
	if err := e.Patch("/api/v1/nodes/sel-other", map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"volcano.sh/role": "batch"}}}); err != nil {
		return err
	}
	if err := e.CreatePod(ns, "big", PodOpts{CPU: "8"}); err != nil {
		return err
	}
	b, err = waitBound(e, ns, "big", 1, 20*time.Second)
	if err != nil {
		return err
	}
	if b["big"] != "sel-other" {
		return errorf("big bound to %s, not the node that joined", b["big"])
	}
	return nil
}
