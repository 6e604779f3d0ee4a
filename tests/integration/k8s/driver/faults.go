package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The API server misbehaving, through the fault-injecting proxy (proxy.go), with one
// Caldera process that reaches the proxy only by the kubeconfig's tls-server-name:
//  1. start-up: the first nodes list is answered 429 with Retry-After: 2, the second page
//     of the pods list 503 twice, the first PodGroups watch 500; lists go in pages of 2
//     (limit/continue), watches ask for bookmarks, and the first sync waits for all;
//  2. a bookmark moves the resourceVersion a resumed watch starts from;
//  3. the nodes watch is cut and refused while a node is deleted and pods arrive: no
//     session runs on the stale cache; the watch then gets kube-apiserver's ERROR 410
//     event, the relist drops the deleted node, and the pods are bound only where room
//     is; then the pods watch, cut while a pod is deleted, gets an HTTP 410, and the
//     relist drops that pod (the queue's allocated cpu says so);
//  4. binds: four 500s make a bind fail for good, the pod goes back to pending and a later
//     session binds it; a 409 is re-read and retried; a 429's Retry-After is honoured;
//  5. a 409 on a PodGroup status write is written again;
//  6. with nothing changing, nothing is written;
//  7. every connection dropped in the middle of 40 binds: each pod is bound once, none
//     lost, no write fails for good.
func testFaults(e *Env) error {
	ns := "faults"
	nodes := []string{"f-n1", "f-n2", "f-n3"}
	defer cleanup(e, ns, nodes, nil)
	e.Namespace(ns)
	for _, n := range nodes {
		if err := e.Create("/api/v1/nodes", Node(n, "4", "16Gi", map[string]string{"zone": "f"})); err != nil {
			return err
		}
	}
	for i := 0; i < 5; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("f-pre-%d", i), PodOpts{CPU: "100m"}); err != nil {
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

	// ---- 1. start-up faults, paged lists ----
	p.AddRule(Rule{Method: "GET", Path: "/api/v1/nodes", Watch: -1, Times: 1, Status: 429, RetryAfter: "2"})
	p.AddRule(Rule{Method: "GET", Path: "/api/v1/pods", Watch: -1, Query: "continue=", Times: 2, Status: 503})
	p.AddRule(Rule{Method: "GET", Path: "/apis/scheduling.volcano.sh/v1beta1/podgroups", Watch: 1, Times: 1, Status: 500})
	c, err := e.StartCaldera("faults", e.ProxyKubeconfig("faults", p, "caldera-proxy.test"), "--list-page-size", "2")
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 40*time.Second); err != nil {
		return err
	}
	lists := func(path string) []Hit {
		return p.Hits(func(h Hit) bool { return h.Method == "GET" && h.Path == path && !h.Watch() })
	}
	watches := func(path string) []Hit {
		return p.Hits(func(h Hit) bool { return h.Method == "GET" && h.Path == path && h.Watch() })
	}
	nl := lists("/api/v1/nodes")
	if len(nl) < 3 || nl[0].Status != 429 || nl[1].At.Sub(nl[0].At) < 1900*time.Millisecond {
		return errorf("nodes list: want a 429 (Retry-After: 2) and the next try 2s later: %s", hitsText(nl))
	}
	pl := lists("/api/v1/pods")
	var failed []int
	for i, h := range pl {
		if h.Status == 503 {
			failed = append(failed, i)
		}
	}
	if len(failed) != 2 || failed[1]+1 >= len(pl) {
		return errorf("pods list: want two 503s, each followed by a new list: %s", hitsText(pl))
	}
	gap1 := pl[failed[0]+1].At.Sub(pl[failed[0]].At)
	gap2 := pl[failed[1]+1].At.Sub(pl[failed[1]].At)
	if gap1 < 450*time.Millisecond || gap2 < 950*time.Millisecond {
		return errorf("pods list: backoff after 503 of %v then %v, want >= 0.5s then >= 1s (doubling): %s",
			gap1, gap2, hitsText(pl))
	}
	continued := 0
	for _, h := range append(append([]Hit{}, pl...), nl...) {
		if h.Query.Get("limit") != "2" {
			return errorf("a list without limit=2: %s %v", h.Path, h.Query)
		}
		if h.Query.Get("continue") != "" && h.Status == 200 {
			continued++
		}
	}
	if continued < 3 { // 5 pods in pages of 2: two continued pages at least, 3 nodes: one
		return errorf("lists were not paged (limit/continue): %s %s", hitsText(pl), hitsText(nl))
	}
	pgw := watches("/apis/scheduling.volcano.sh/v1beta1/podgroups")
	if len(pgw) < 2 || pgw[0].Status != 500 || pgw[1].At.Sub(pgw[0].At) < 450*time.Millisecond {
		return errorf("podgroups watch: want a 500 and a new watch after backoff: %s", hitsText(pgw))
	}
	for _, h := range p.Hits(func(h Hit) bool { return h.Watch() }) {
		if h.Query.Get("allowWatchBookmarks") != "true" || h.Query.Get("resourceVersion") == "" {
			return errorf("a watch without bookmarks or resourceVersion: %s %v", h.Path, h.Query)
		}
	}
	for _, want := range []string{"listing nodes failed: HTTP 429", "listing pods failed: HTTP 503",
		"podgroups: watch ended: HTTP 500"} {
		if !c.Contains(want) {
			return errorf("no %q in Caldera's log:\n%s", want, tail(c.Output(), 20))
		}
	}
	if _, err := waitBound(e, ns, "f-pre-", 5, 20*time.Second); err != nil {
		return err
	}
	if err := waitRunning(e, ns, "f-pre-", 5); err != nil {
		return err
	}

	// ---- 2. a bookmark moves the resourceVersion a watch resumes from ----
	time.Sleep(1 * time.Second)
	var list struct {
		Metadata struct{ ResourceVersion string }
	}
	if err := e.Get("/api/v1/pods?limit=1", &list); err != nil {
		return err
	}
	rv := list.Metadata.ResourceVersion
	if n := p.Inject("/api/v1/pods", map[string]any{"type": "BOOKMARK", "object": map[string]any{
		"kind": "Pod", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": rv}}}); n != 1 {
		return errorf("bookmark injected into %d pods watches, want 1", n)
	}
	time.Sleep(300 * time.Millisecond)
	cut := time.Now()
	if n := p.Drop("/api/v1/pods"); n < 1 {
		return errorf("no pods watch to cut")
	}
	var resumed []Hit
	err = WaitFor(15*time.Second, "the pods watch to resume", func() (bool, string) {
		resumed = p.Hits(func(h Hit) bool { return h.Path == "/api/v1/pods" && h.Watch() && h.At.After(cut) })
		return len(resumed) > 0, ""
	})
	if err != nil {
		return err
	}
	if got := resumed[0].Query.Get("resourceVersion"); got != rv {
		return errorf("the pods watch resumed from resourceVersion %s, want the bookmark's %s", got, rv)
	}

	// ---- 3a. nodes: cut off, a node deleted, pods arrive; 410 Gone; relist ----
	black := p.AddRule(Rule{Method: "GET", Path: "/api/v1/nodes", Watch: 1, Times: -1, Status: 503, RetryAfter: "1"})
	cut = time.Now()
	if n := p.Drop("/api/v1/nodes"); n < 1 {
		return errorf("no nodes watch to cut")
	}
	// Caldera knows it is cut off before anything changes.
	if err := waitCount(c, "nodes: watch ended: transport error", 1); err != nil {
		return err
	}
	if err := e.Delete("/api/v1/nodes/f-n3"); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("f-z-%d", i), PodOpts{CPU: "3", NodeSelector: map[string]string{"zone": "f"}}); err != nil {
			return err
		}
	}
	err = WaitFor(20*time.Second, "Caldera to retry the nodes watch twice", func() (bool, string) {
		n := len(p.Hits(func(h Hit) bool { return h.Path == "/api/v1/nodes" && h.Watch() && h.At.After(cut) && h.Status == 503 }))
		return n >= 2, fmt.Sprint(n, " refused")
	})
	if err != nil {
		return err
	}
	if b, _ := bound(e, ns, "f-z-"); len(b) != 0 {
		return errorf("pods bound while the nodes watch was down (sessions on a stale cache): %v", b)
	}
	p.RemoveRule(black)
	p.AddRule(Rule{Method: "GET", Path: "/api/v1/nodes", Watch: 1, Times: 1, WatchErrorCode: 410})
	if err := c.WaitLog("nodes: 1 object(s) vanished while not watched; removed", 30*time.Second); err != nil {
		return err
	}
	if !c.Contains("nodes: watch: 410 Gone") {
		return errorf("no 410 relist of nodes in the log:\n%s", tail(c.Output(), 15))
	}
	z, err := waitBound(e, ns, "f-z-", 2, 20*time.Second)
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // more sessions: the third pod has no room left
	z, _ = bound(e, ns, "f-z-")
	perNode := map[string]int{}
	for _, node := range z {
		perNode[node]++
	}
	if perNode["f-n3"] > 0 {
		return errorf("f-z pods bound %v: to the deleted node f-n3, which the relist did not remove", z)
	}
	if len(z) != 2 || perNode["f-n1"] != 1 || perNode["f-n2"] != 1 {
		return errorf("f-z pods bound %v: want two, one per remaining node", z)
	}
	if err := waitRunning(e, ns, "f-z-", 2); err != nil {
		return err
	}

	// ---- 3b. pods: cut off, a pod deleted, HTTP 410; relist ----
	black = p.AddRule(Rule{Method: "GET", Path: "/api/v1/pods", Watch: 1, Times: -1, Status: 503})
	cut = time.Now()
	p.Drop("/api/v1/pods")
	if err := waitCount(c, "pods: watch ended: transport error", 2); err != nil { // the bookmark's cut was the first
		return err
	}
	if err := e.Delete("/api/v1/namespaces/" + ns + "/pods/f-pre-0"); err != nil {
		return err
	}
	err = WaitFor(20*time.Second, "Caldera to retry the pods watch", func() (bool, string) {
		n := len(p.Hits(func(h Hit) bool { return h.Path == "/api/v1/pods" && h.Watch() && h.At.After(cut) && h.Status == 503 }))
		return n >= 1, ""
	})
	if err != nil {
		return err
	}
	p.RemoveRule(black)
	p.AddRule(Rule{Method: "GET", Path: "/api/v1/pods", Watch: 1, Times: 1, Status: 410})
	if err := c.WaitLog("pods: 1 object(s) vanished while not watched; removed", 30*time.Second); err != nil {
		return err
	}
	// 4 x 100m + 2 x 3 cpu still run: the deleted pod is no longer counted.
	err = WaitFor(15*time.Second, "the default queue's allocated cpu without f-pre-0", func() (bool, string) {
		q, err := e.Queue("default")
		if err != nil {
			return false, err.Error()
		}
		return milli(q.Status.Allocated["cpu"]) == 6400, fmt.Sprintf("%+v", q.Status)
	})
	if err != nil {
		return err
	}

	// ---- 4. binds: failing for good and rolled back, conflict, Retry-After ----
	for i := 0; i < 3; i++ {
		e.Delete(fmt.Sprintf("/api/v1/namespaces/%s/pods/f-z-%d", ns, i))
	}
	binding := func(pod string) string { return "/namespaces/" + ns + "/pods/" + pod + "/binding" }
	p.AddRule(Rule{Method: "POST", Path: binding("f-roll-0"), Times: 4, Status: 500})
	p.AddRule(Rule{Method: "POST", Path: binding("f-conf-0"), Times: 1, Status: 409})
	p.AddRule(Rule{Method: "POST", Path: binding("f-ra-0"), Times: 1, Status: 429, RetryAfter: "2"})
	for _, name := range []string{"f-roll-0", "f-conf-0", "f-ra-0"} {
		if err := e.CreatePod(ns, name, PodOpts{CPU: "100m"}); err != nil {
			return err
		}
	}
	for _, name := range []string{"f-roll-0", "f-conf-0", "f-ra-0"} {
		if _, err := waitBound(e, ns, name, 1, 30*time.Second); err != nil {
			return errorf("%v\ncaldera:\n%s", err, tail(c.Output(), 15))
		}
	}
	binds := func(pod string) []Hit {
		return p.Hits(func(h Hit) bool { return h.Method == "POST" && strings.HasSuffix(h.Path, binding(pod)) })
	}
	if b := binds("f-roll-0"); len(b) != 5 || b[3].Status != 500 || b[4].Status != 201 {
		return errorf("f-roll-0: want 4 failed binds and a fifth that succeeds: %s", hitsText(b))
	}
	if !c.Contains("bind faults/f-roll-0 to ") || !c.Contains("failed: no success after 4 attempts; the pod stays pending") {
		return errorf("no log of the bind that failed for good:\n%s", grep(c.Output(), "f-roll-0"))
	}
	if b := binds("f-conf-0"); len(b) != 2 || b[0].Status != 409 || b[1].Status != 201 {
		return errorf("f-conf-0: want a 409 and one more bind after the re-read: %s", hitsText(b))
	}
	if b := binds("f-ra-0"); len(b) != 2 || b[0].Status != 429 || b[1].Status != 201 ||
		b[1].At.Sub(b[0].At) < 1900*time.Millisecond {
		return errorf("f-ra-0: want a 429 (Retry-After: 2) and the retry 2s later: %s", hitsText(b))
	}

	// ---- 5. a conflict on a status write ----
	p.AddRule(Rule{Method: "PATCH", Path: "/namespaces/" + ns + "/podgroups/f-pg", Times: 1, Status: 409})
	if err := e.CreatePodGroup(ns, "f-pg", "default", 2, ""); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("f-pg-%d", i), PodOpts{PodGroup: "f-pg", CPU: "100m"}); err != nil {
			return err
		}
	}
	err = WaitFor(20*time.Second, "PodGroup f-pg Running with 2 running", func() (bool, string) {
		pg, err := e.PodGroup(ns, "f-pg")
		if err != nil {
			return false, err.Error()
		}
		return pg.Status.Phase == "Running" && pg.Status.Running == 2, fmt.Sprintf("%+v", pg.Status)
	})
	if err != nil {
		return err
	}
	// The API server shows the status as soon as it applied the write; the proxy records
	// the answer a moment later, as it passes back: wait for it (status 0 = in flight).
	isPgWrite := func(h Hit) bool { return h.Method == "PATCH" && strings.HasSuffix(h.Path, "/podgroups/f-pg") }
	_ = WaitFor(5*time.Second, "the PodGroup writes answered", func() (bool, string) {
		pgw = p.Hits(isPgWrite)
		return len(pgw) > 0 && pgw[len(pgw)-1].Status != 0, hitsText(pgw)
	})
	pgw = p.Hits(isPgWrite)
	if len(pgw) < 2 || pgw[0].Status != 409 || !pgw[0].Injected || pgw[len(pgw)-1].Status != 200 {
		return errorf("PodGroup f-pg status: want a 409 and then a write that succeeds: %s", hitsText(pgw))
	}
	if !c.Contains("status of PodGroup faults/f-pg: 409 Conflict; written again at the next session") {
		return errorf("no log of the status conflict:\n%s", grep(c.Output(), "f-pg"))
	}

	// ---- 6. nothing changes: nothing is written ----
	if err := waitRunning(e, ns, "f-", 9); err != nil {
		return err
	}
	time.Sleep(3 * time.Second)
	quiet := time.Now()
	time.Sleep(4 * time.Second) // four sessions
	writes := p.Hits(func(h Hit) bool { return h.At.After(quiet) && h.Method != "GET" })
	if len(writes) != 0 {
		return errorf("%d writes while nothing changed: %s", len(writes), hitsText(writes))
	}

	// ---- 7. every connection dropped in the middle of 40 binds ----
	const n = 40
	// Each first bind reaches the API server at once, its answer 1.5 s later: cutting the
	// connections in between loses answers to binds that are done.
	p.AddRule(Rule{Method: "POST", Contains: "/pods/f-d-", Times: n, DelayAnswer: 1500 * time.Millisecond})
	if err := parallel(n, 8, func(i int) error {
		return e.CreatePod(ns, fmt.Sprintf("f-d-%03d", i), PodOpts{CPU: "50m"})
	}); err != nil {
		return err
	}
	err = WaitFor(20*time.Second, "20 binds of f-d-* sent", func() (bool, string) {
		k := len(p.Hits(func(h Hit) bool { return h.Method == "POST" && strings.Contains(h.Path, "/pods/f-d-") }))
		return k >= 20, fmt.Sprint(k, " sent")
	})
	if err != nil {
		return err
	}
	dropped := p.DropAll()
	if _, err := waitBound(e, ns, "f-d-", n, 60*time.Second); err != nil {
		return errorf("%v\ncaldera:\n%s", err, tail(c.Output(), 20))
	}
	accepted := map[string]int{}
	for _, h := range p.Hits(func(h Hit) bool {
		return h.Method == "POST" && strings.HasSuffix(h.Path, "/binding") && h.Status == 201
	}) {
		accepted[h.Path]++
	}
	for path, k := range accepted {
		if k > 1 {
			return errorf("%s accepted %d times", path, k)
		}
	}
	if err := overcommitted(e, ns, map[string]int{"f-n1": 4000, "f-n2": 4000}); err != nil {
		return err
	}
	fmt.Printf("    %d requests cut in the middle of the binds\n", dropped)
	time.Sleep(time.Second)
	if !c.Running() {
		return errorf("caldera exited:\n%s", tail(c.Output(), 20))
	}
	c.Stop()
	out := c.Output()
	// No write failed for good but f-roll-0's bind, which was meant to.
	for _, l := range strings.Split(out, "\n") {
		if regexp.MustCompile(`kubernetes: (bind|evict|status of|PodScheduled).* failed: `).MatchString(l) &&
			!strings.Contains(l, "f-roll-0") {
			return errorf("a write failed for good:\n%s", l)
		}
	}
	m := regexp.MustCompile(`binds (\d+) ok, (\d+) failed \((\d+) conflicts\).*status writes \((\d+) conflicts\)`).FindStringSubmatch(out)
	if m == nil {
		return errorf("no summary line:\n%s", tail(out, 5))
	}
	failedBinds, _ := strconv.Atoi(m[2])
	conflicts, _ := strconv.Atoi(m[3])
	statusConflicts, _ := strconv.Atoi(m[4])
	// Conflicts: f-conf-0's, and the binds whose answer was lost (done, retried, 409, found
	// bound where decided).
	if failedBinds != 1 || conflicts < 2 || statusConflicts != 1 {
		return errorf("summary %q: want 1 failed bind (f-roll-0), >= 2 bind conflicts, 1 status conflict", m[0])
	}
	fmt.Printf("    %d bind conflicts re-read and found done or retried\n", conflicts)
	return nil
}

// waitCount waits until Caldera's log holds s at least n times.
func waitCount(c *Caldera, s string, n int) error {
	return WaitFor(10*time.Second, fmt.Sprintf("%q %d times in %s's log", s, n, c.Name), func() (bool, string) {
		k := strings.Count(c.Output(), s)
		return k >= n, fmt.Sprint(k, " times")
	})
}

// waitRunning waits until n pods of ns whose name starts with prefix are Running.
func waitRunning(e *Env, ns, prefix string, n int) error {
	return WaitFor(20*time.Second, fmt.Sprintf("%d pods %s/%s* Running", n, ns, prefix), func() (bool, string) {
		pods, err := e.Pods(ns)
		if err != nil {
			return false, err.Error()
		}
		k := 0
		for _, p := range pods {
			if strings.HasPrefix(p.Metadata.Name, prefix) && p.Status.Phase == "Running" {
				k++
			}
		}
		return k >= n, fmt.Sprint(k, " running")
	})
}

func hitsText(hs []Hit) string {
	var parts []string
	var t0 time.Time
	for i, h := range hs {
		if i == 0 {
			t0 = h.At
		}
		inj := ""
		if h.Injected {
			inj = " (injected)"
		}
		parts = append(parts, fmt.Sprintf("+%.2fs %s %s?%s -> %d%s", h.At.Sub(t0).Seconds(), h.Method, h.Path,
			h.Query.Encode(), h.Status, inj))
	}
	return "\n  " + strings.Join(parts, "\n  ")
}
