package main

// The pod history: one watch on every pod of the cluster, from the rig's start, recording
// when each pod (by UID: a restarted job's pods have new ones) was created, bound (and
// where), Running, finished and deleted. Binds are counted from it (a pod's nodeName goes
// from "" to a node once), and the capacity check replays it. A watch, not polling: it
// sees every state, even a victim that lives for a few milliseconds after its eviction.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

type PodRec struct {
	UID, NS, Name  string
	Job, Task      string // volcano.sh/job-name, volcano.sh/task-spec
	Priority       int
	CPU            int // millicores requested
	Node           string
	Created        time.Time
	Bound          time.Time // zero: never bound
	Running        time.Time
	Finished       time.Time // Succeeded or Failed
	Phase          string    // the last seen
	DeletionMarked time.Time // deletionTimestamp first seen
	Deleted        time.Time
	// Disruption: the reason of a DisruptionTarget=True condition, which an eviction
	// writes (volcano-scheduler: PreemptionByScheduler; the Eviction API Caldera uses:
	// EvictionByEvictionAPI) and a controller's plain delete does not.
	Disruption string
}

type History struct {
	mu      sync.Mutex
	pods    map[string]*PodRec // by UID
	order   []string           // UIDs in order of creation
	pgs     map[string]*PGRec  // by UID
	pgOrder []string
}

type watchPod struct {
	Metadata struct {
		UID               string            `json:"uid"`
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		ResourceVersion   string            `json:"resourceVersion"`
		Annotations       map[string]string `json:"annotations"`
		DeletionTimestamp *string           `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName   string `json:"nodeName"`
		Priority   *int   `json:"priority"`
		Containers []struct {
			Resources struct {
				Requests map[string]string `json:"requests"`
			} `json:"resources"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase"`
		Conditions []struct {
			Type, Status, Reason string
		} `json:"conditions"`
	} `json:"status"`
}

// Watch starts the watches of pods and PodGroups; they run until ctx ends.
func (r *Rig) Watch(ctx context.Context) *History {
	h := &History{pods: map[string]*PodRec{}, pgs: map[string]*PGRec{}}
	a := r.watchStream(ctx, "/api/v1/pods", func(typ string, raw []byte) {
		var p watchPod
		if json.Unmarshal(raw, &p) == nil {
			h.record(typ, &p, time.Now())
		}
	})
	b := r.watchStream(ctx, "/apis/scheduling.volcano.sh/v1beta1/podgroups", func(typ string, raw []byte) {
		var pg watchPG
		if json.Unmarshal(raw, &pg) == nil {
			h.recordPG(typ, &pg, time.Now())
		}
	})
	<-a
	<-b
	return h
}

// watchStream watches path (every namespace) and calls f with each event's type and
// object, reconnecting from the last resourceVersion if the stream ends. The channel
// closes once the first request is answered (or after 10 s).
func (r *Rig) watchStream(ctx context.Context, path string, f func(typ string, obj []byte)) <-chan struct{} {
	client := &http.Client{Transport: r.client.Transport} // no timeout: a stream
	ready := make(chan struct{})
	go func() {
		rv := ""
		first := true
		defer func() {
			if first {
				close(ready)
			}
		}()
		for ctx.Err() == nil {
			url := r.URL() + path + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=3600"
			if rv != "" {
				url += "&resourceVersion=" + rv
			}
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			req.Header.Set("Authorization", "Bearer "+r.token)
			resp, err := client.Do(req)
			if err != nil {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			if first {
				close(ready)
				first = false
			}
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			for sc.Scan() {
				var ev struct {
					Type   string
					Object json.RawMessage
				}
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					continue
				}
				if ev.Type == "ERROR" { // e.g. 410 Gone: start over from now
					rv = ""
					break
				}
				var meta struct {
					Metadata struct{ ResourceVersion string } `json:"metadata"`
				}
				json.Unmarshal(ev.Object, &meta)
				rv = meta.Metadata.ResourceVersion
				if ev.Type != "BOOKMARK" {
					f(ev.Type, ev.Object)
				}
			}
			resp.Body.Close()
		}
	}()
	done := make(chan struct{})
	go func() {
		select {
		case <-ready:
		case <-time.After(10 * time.Second):
		}
		close(done)
	}()
	return done
}

// PGRec: a PodGroup's phases in the order they were seen, and its deletion.
type PGRec struct {
	NS, Name string
	Owner    string    // the controller owner's kind/name
	Created  time.Time // metadata.creationTimestamp (whole seconds): the scheduler's job age
	Phases   []string
	Times    []time.Time
	Deleted  time.Time
}

type watchPG struct {
	Metadata struct {
		UID               string    `json:"uid"`
		Name              string    `json:"name"`
		Namespace         string    `json:"namespace"`
		CreationTimestamp time.Time `json:"creationTimestamp"`
		OwnerReferences   []struct {
			Kind, Name string
			Controller *bool
		} `json:"ownerReferences"`
	} `json:"metadata"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

func (h *History) recordPG(typ string, pg *watchPG, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.pgs[pg.Metadata.UID]
	if rec == nil {
		rec = &PGRec{NS: pg.Metadata.Namespace, Name: pg.Metadata.Name, Created: pg.Metadata.CreationTimestamp}
		for _, o := range pg.Metadata.OwnerReferences {
			if o.Controller != nil && *o.Controller {
				rec.Owner = o.Kind + "/" + o.Name
			}
		}
		h.pgs[pg.Metadata.UID] = rec
		h.pgOrder = append(h.pgOrder, pg.Metadata.UID)
	}
	if ph := pg.Status.Phase; ph != "" && (len(rec.Phases) == 0 || rec.Phases[len(rec.Phases)-1] != ph) {
		rec.Phases = append(rec.Phases, ph)
		rec.Times = append(rec.Times, now)
	}
	if typ == "DELETED" && rec.Deleted.IsZero() {
		rec.Deleted = now
	}
}

// PodGroupsOf: the records of the PodGroups of ns owned by owner ("Job/mpi"), oldest first.
func (h *History) PodGroupsOf(ns, owner string) []PGRec {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []PGRec
	for _, uid := range h.pgOrder {
		if p := h.pgs[uid]; p.NS == ns && p.Owner == owner {
			c := *p
			c.Phases = append([]string(nil), p.Phases...)
			c.Times = append([]time.Time(nil), p.Times...)
			out = append(out, c)
		}
	}
	return out
}

// PodGroupsIn: the records of every PodGroup of ns, oldest first.
func (h *History) PodGroupsIn(ns string) []PGRec {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []PGRec
	for _, uid := range h.pgOrder {
		if p := h.pgs[uid]; p.NS == ns {
			c := *p
			c.Phases = append([]string(nil), p.Phases...)
			c.Times = append([]time.Time(nil), p.Times...)
			out = append(out, c)
		}
	}
	return out
}

func (h *History) record(typ string, p *watchPod, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.pods[p.Metadata.UID]
	if rec == nil {
		rec = &PodRec{UID: p.Metadata.UID, NS: p.Metadata.Namespace, Name: p.Metadata.Name,
			Job: p.Metadata.Annotations["volcano.sh/job-name"], Task: p.Metadata.Annotations["volcano.sh/task-spec"],
			Created: now}
		if p.Spec.Priority != nil {
			rec.Priority = *p.Spec.Priority
		}
		for _, c := range p.Spec.Containers {
			rec.CPU += milli(c.Resources.Requests["cpu"])
		}
		h.pods[rec.UID] = rec
		h.order = append(h.order, rec.UID)
	}
	if p.Spec.NodeName != "" && rec.Bound.IsZero() {
		rec.Bound, rec.Node = now, p.Spec.NodeName
	}
	rec.Phase = p.Status.Phase
	if p.Status.Phase == "Running" && rec.Running.IsZero() {
		rec.Running = now
	}
	if (p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed") && rec.Finished.IsZero() {
		rec.Finished = now
	}
	if p.Metadata.DeletionTimestamp != nil && rec.DeletionMarked.IsZero() {
		rec.DeletionMarked = now
	}
	for _, c := range p.Status.Conditions {
		if c.Type == "DisruptionTarget" && c.Status == "True" && rec.Disruption == "" {
			rec.Disruption = c.Reason
		}
	}
	if typ == "DELETED" && rec.Deleted.IsZero() {
		rec.Deleted = now
		if rec.DeletionMarked.IsZero() {
			rec.DeletionMarked = now
		}
	}
}

// Pods: copies of the records of namespace ns, in order of creation.
func (h *History) Pods(ns string) []PodRec {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []PodRec
	for _, uid := range h.order {
		if p := h.pods[uid]; p.NS == ns {
			out = append(out, *p)
		}
	}
	return out
}

// Binds: how many pods of ns were bound (each pod once: the scheduler's bind count).
// Counted in place, without Pods' copies: the backlog benchmark asks often, of 20,000 pods.
func (h *History) Binds(ns string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, p := range h.pods {
		if p.NS == ns && !p.Bound.IsZero() {
			n++
		}
	}
	return n
}

// CheckCapacity replays the history of ns: at no moment may the pods bound to a node and
// not yet finished or deleted ask for more cpu than the node has (capacity in millicores).
// A pod marked for deletion still counts (its containers are stopping) until it is gone.
func (h *History) CheckCapacity(ns string, capacity map[string]int) error {
	type ev struct {
		t    time.Time
		node string
		cpu  int
		what string
	}
	var evs []ev
	for _, p := range h.Pods(ns) {
		if p.Bound.IsZero() {
			continue
		}
		if _, ok := capacity[p.Node]; !ok {
			return fmt.Errorf("pod %s bound to %s, a node the test did not make", p.Name, p.Node)
		}
		evs = append(evs, ev{p.Bound, p.Node, p.CPU, "bind " + p.Name})
		end := p.Deleted
		if !p.Finished.IsZero() && (end.IsZero() || p.Finished.Before(end)) {
			end = p.Finished
		}
		if !end.IsZero() {
			evs = append(evs, ev{end, p.Node, -p.CPU, "end " + p.Name})
		}
	}
	// Releases before binds at the same instant: a bind that follows a release in the
	// same watch event batch is not an overcommit.
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].t.Equal(evs[j].t) {
			return evs[i].cpu < evs[j].cpu
		}
		return evs[i].t.Before(evs[j].t)
	})
	used := map[string]int{}
	for _, e := range evs {
		used[e.node] += e.cpu
		if used[e.node] > capacity[e.node] {
			return fmt.Errorf("node %s overcommitted at %s: %dm of %dm cpu requested",
				e.node, e.what, used[e.node], capacity[e.node])
		}
	}
	return nil
}

// Timeline: the pods of ns as lines "name node bound→running→finished (deleted)", seconds
// from t0, for failure messages and the report.
func (h *History) Timeline(ns string, t0 time.Time) string {
	var b strings.Builder
	s := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return fmt.Sprintf("%.1f", t.Sub(t0).Seconds())
	}
	for _, p := range h.Pods(ns) {
		fmt.Fprintf(&b, "    %-28s %-10s created %5s bound %5s running %5s finished %5s deleted %5s (%s)\n",
			p.Name, p.Node, s(p.Created), s(p.Bound), s(p.Running), s(p.Finished), s(p.Deleted), p.Phase)
	}
	return b.String()
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
