package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// HyperNode builds a topology.volcano.sh/v1alpha1 HyperNode; each member is
// {"type": "Node"|"HyperNode", "selector": {...}}.
func HyperNode(name string, tier int, members ...map[string]any) map[string]any {
	ms := []any{}
	for _, m := range members {
		ms = append(ms, m)
	}
	return map[string]any{
		"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"tier": tier, "members": ms},
	}
}

func exactMember(kind, name string) map[string]any {
	return map[string]any{"type": kind, "selector": map[string]any{"exactMatch": map[string]any{"name": name}}}
}

func regexMember(pattern string) map[string]any {
	return map[string]any{"type": "Node", "selector": map[string]any{"regexMatch": map[string]any{"pattern": pattern}}}
}

// A job with a hard network topology (PodGroup spec.networkTopology, mode hard, highest
// tier 1) is bound as a whole inside one tier-1 HyperNode, although the nodes first by
// name are behind another switch; a second such job that no tier-1 HyperNode can hold
// stays unbound, its pods saying the job's FitError (no HyperNode had the idle room for
// its pending pods, so none was tried: Volcano ed72c7c's isEligibleHyperNode). Topology: topo-s0 (tier 1) = topo-n0,
// topo-n1 (exactMatch); topo-s1 (tier 1) = topo-n2, topo-n3 (regexMatch); topo-s2 (tier 2)
// = topo-s0, topo-s1. A pod of another scheduler fills topo-n1.
func testTopology(e *Env) error {
	ns := "topo"
	nodes := []string{"topo-n0", "topo-n1", "topo-n2", "topo-n3"}
	hypernodes := []string{"topo-s2", "topo-s1", "topo-s0"}
	defer func() {
		for _, h := range hypernodes {
			e.Delete("/apis/topology.volcano.sh/v1alpha1/hypernodes/" + h)
		}
		cleanup(e, ns, nodes, nil)
	}()
	e.Namespace(ns)
	for _, n := range nodes {
		if err := e.Create("/api/v1/nodes", Node(n, "4", "16Gi", map[string]string{"test": "topo"})); err != nil {
			return err
		}
	}
	const hnPath = "/apis/topology.volcano.sh/v1alpha1/hypernodes"
	for _, h := range []map[string]any{
		HyperNode("topo-s0", 1, exactMember("Node", "topo-n0"), exactMember("Node", "topo-n1")),
		HyperNode("topo-s1", 1, regexMember("^topo-n[23]$")),
		HyperNode("topo-s2", 2, exactMember("HyperNode", "topo-s0"), exactMember("HyperNode", "topo-s1")),
	} {
		if err := e.Create(hnPath, h); err != nil {
			return err
		}
	}
	// The CRD's validation is Volcano's: a member with two selectors is refused.
	bad := HyperNode("topo-bad", 1, map[string]any{"type": "Node", "selector": map[string]any{
		"exactMatch": map[string]any{"name": "a"}, "regexMatch": map[string]any{"pattern": "b"}}})
	if err := e.Create(hnPath, bad); err == nil || !strings.Contains(err.Error(), "Only one of") {
		e.Delete(hnPath + "/topo-bad")
		return errorf("a HyperNode member with two selectors was accepted: %v", err)
	}
	if err := e.CreatePod(ns, "other", PodOpts{CPU: "4", NodeName: "topo-n1", Scheduler: "default-scheduler"}); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)
	c, err := e.StartCaldera("topo", e.Kubeconfig("topo", false, 0))
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("3 HyperNodes", 30*time.Second); err != nil {
		return err
	}

	hard := func(name string, minMember int) error {
		pg := PodGroupObj(ns, name, "default", minMember, "")
		pg["spec"].(map[string]any)["networkTopology"] = map[string]any{"mode": "hard", "highestTierAllowed": 1}
		return e.Create(fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups", ns), pg)
	}
	if err := hard("train", 2); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("train-%d", i), PodOpts{PodGroup: "train", CPU: "4"}); err != nil {
			return err
		}
	}
	got, err := waitBound(e, ns, "train-", 2, 20*time.Second)
	if err != nil {
		return err
	}
	// topo-s0 has room for one pod only (topo-n1 is full): the job goes to topo-s1.
	if got["train-0"] != "topo-n2" || got["train-1"] != "topo-n3" {
		return errorf("train bound to %v, want train-0 on topo-n2 and train-1 on topo-n3 (inside topo-s1)", got)
	}

	// Two more pods of 4 cpu with the same constraint: only topo-n0 is free, so no tier-1
	// HyperNode can hold them: unbound, and the pods say the job is not ready. (The preempt action may leave
	// one of them pipelined on topo-n0 within a session, as Volcano's does: a pipelined pod
	// is not pending and gets no new condition; it is never bound from there.)
	if err := hard("late", 2); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		if err := e.CreatePod(ns, fmt.Sprintf("late-%d", i), PodOpts{PodGroup: "late", CPU: "4"}); err != nil {
			return err
		}
	}
	err = WaitFor(20*time.Second, "late's pods PodScheduled=False with the job's FitError", func() (bool, string) {
		pods, err := e.Pods(ns)
		if err != nil {
			return false, err.Error()
		}
		n := 0
		seen := []string{}
		for _, p := range pods {
			if !strings.HasPrefix(p.Metadata.Name, "late-") {
				continue
			}
			for _, cond := range p.Status.Conditions {
				if cond.Type != "PodScheduled" {
					continue
				}
				seen = append(seen, fmt.Sprintf("%s: %s %q", p.Metadata.Name, cond.Status, cond.Message))
				if cond.Status == "False" && strings.Contains(cond.Message, "pod group is not ready, 2 Pending, 2 minAvailable") {
					n++
				}
			}
		}
		return n >= 1, strings.Join(seen, "; ")
	})
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // more sessions: still nothing of late may be bound
	if b, err := bound(e, ns, "late-"); err != nil || len(b) != 0 {
		return errorf("late bound outside one tier-1 HyperNode: %v %v", b, err)
	}
	return nil
}
