package main

import (
	"time"
)

// How Caldera lists when --list-page-size is not given: as client-go's reflector
// (relistResourceVersion), through the fault-injecting proxy.
//  1. the first list of each kind asks the API server's watch cache: resourceVersion=0
//     (limit 500, which the cache ignores);
//  2. the pods watch is cut and resumed with an HTTP 410: the relist asks for the last
//     version seen, without a limit (the watch cache again, never older than the cache);
//  3. that list is answered 410 too: the next one reads etcd, consistent, in pages of 500
//     (no resourceVersion), and the cache is whole again: a pod made afterwards is bound.
func testLists(e *Env) error {
	ns := "lists"
	nodes := []string{"l-n1"}
	defer cleanup(e, ns, nodes, nil)
	e.Namespace(ns)
	if err := e.Create("/api/v1/nodes", Node(nodes[0], "4", "16Gi", nil)); err != nil {
		return err
	}
	p, err := e.StartProxy(e.path("proxy.crt"), e.path("proxy.key"))
	if err != nil {
		return err
	}
	defer p.Close()
	c, err := e.StartCaldera("lists", e.ProxyKubeconfig("lists", p, "caldera-proxy.test"))
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 40*time.Second); err != nil {
		return err
	}
	lists := func(path string, after time.Time) []Hit {
		return p.Hits(func(h Hit) bool {
			return h.Method == "GET" && h.Path == path && !h.Watch() && h.At.After(after)
		})
	}

	// 1. The first lists.
	for _, path := range []string{"/api/v1/nodes", "/api/v1/pods",
		"/apis/scheduling.volcano.sh/v1beta1/podgroups"} {
		hs := lists(path, time.Time{})
		if len(hs) != 1 || hs[0].Query.Get("resourceVersion") != "0" || hs[0].Query.Get("limit") != "500" {
			return errorf("%s: want one list with resourceVersion=0&limit=500: %s", path, hitsText(hs))
		}
	}

	// 2 and 3. A relist at the last version, refused; then a consistent one.
	mark := time.Now()
	p.AddRule(Rule{Method: "GET", Path: "/api/v1/pods", Watch: -1, Query: "resourceVersion=", Times: 1, Status: 410})
	p.AddRule(Rule{Method: "GET", Path: "/api/v1/pods", Watch: 1, Times: 1, Status: 410})
	p.Drop("/api/v1/pods")
	if err := c.WaitLog("pods listed again", 30*time.Second); err != nil {
		return err
	}
	hs := lists("/api/v1/pods", mark)
	if len(hs) < 2 {
		return errorf("pods: want a relist refused and one read from etcd: %s", hitsText(hs))
	}
	at, refused := hs[0].Query.Get("resourceVersion"), hs[0]
	if at == "" || at == "0" || refused.Query.Has("limit") || refused.Status != 410 || !refused.Injected {
		return errorf("pods: the relist must ask for the last version seen, without a limit (and was to be refused): %s",
			hitsText(hs))
	}
	consistent := hs[1]
	if consistent.Query.Has("resourceVersion") || consistent.Query.Get("limit") != "500" || consistent.Status != 200 {
		return errorf("pods: after the refusal, want a consistent list in pages of 500: %s", hitsText(hs))
	}
	if err := e.CreatePod(ns, "l-0", PodOpts{CPU: "100m"}); err != nil {
		return err
	}
	if _, err := waitBound(e, ns, "l-", 1, 20*time.Second); err != nil {
		return err
	}
	return nil
}
