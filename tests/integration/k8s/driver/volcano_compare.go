package main

// What Volcano's own scheduler writes to the API server for the same jobs, next to what
// Caldera writes: the events on pods and PodGroups (type, reason, message) and the
// PodGroups' phase and conditions. Both run as volcano-scheduler's image would, with the
// same arguments and the same Volcano config, one after the other on the same node.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// errSkip: the test cannot run here; its message says why.
var errSkip = errors.New("skip")

// vcScheduler finds Volcano's scheduler binary: $CALDERA_VC_SCHEDULER, the unpacked
// ../shared/volcano, or unpack.sh there.
func vcScheduler(e *Env) (string, string) {
	if p := os.Getenv("CALDERA_VC_SCHEDULER"); p != "" {
		return p, ""
	}
	home, _ := os.UserHomeDir()
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(home, ".cache")
	}
	if p := filepath.Join(cache, "volcano-ed72c7c", "vc-scheduler"); fileExists(p) {
		return p, ""
	}
	unpack := filepath.Join(e.Source, "..", "shared", "volcano", "unpack.sh")
	if !fileExists(unpack) {
		return "", "../shared/volcano is absent (Volcano's scheduler binary)"
	}
	out, err := exec.Command(unpack).Output()
	if err != nil {
		return "", fmt.Sprintf("%s failed: %v", unpack, err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "vc-scheduler")
	if !fileExists(p) {
		return "", p + " missing after unpack.sh"
	}
	return p, ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// writes: per object ("Pod a-0", "PodGroup b"), what the scheduler wrote, the namespace
// taken out of the texts.
func writes(e *Env, ns string) (map[string][]string, error) {
	out := map[string][]string{}
	evs, err := e.Events(ns)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		key := ev.InvolvedObject.Kind + " " + ev.InvolvedObject.Name
		line := fmt.Sprintf("event %s %s: %s", ev.Type, ev.Reason, strings.ReplaceAll(ev.Message, ns+"/", "NS/"))
		out[key] = append(out[key], line)
	}
	for _, pg := range []string{"a", "b"} {
		g, err := e.PodGroup(ns, pg)
		if err != nil {
			return nil, err
		}
		key := "PodGroup " + pg
		out[key] = append(out[key], "phase "+g.Status.Phase)
		for _, c := range g.Status.Conditions {
			out[key] = append(out[key], fmt.Sprintf("condition %s=%s %s: %s", c.Type, c.Status, c.Reason,
				strings.ReplaceAll(c.Message, ns+"/", "NS/")))
		}
	}
	for k, v := range out {
		sort.Strings(v)
		// The same event repeated over sessions counts once.
		uniq := v[:0]
		for i, s := range v {
			if i == 0 || s != v[i-1] {
				uniq = append(uniq, s)
			}
		}
		out[k] = uniq
	}
	return out, nil
}

func testVolcanoWrites(e *Env) error {
	bin, why := vcScheduler(e)
	if bin == "" {
		return fmt.Errorf("%w: %s", errSkip, why)
	}
	conf := filepath.Join(e.Source, "..", "shared", "volcano", "configs", "volcano-scheduler.conf")
	if !fileExists(conf) {
		return fmt.Errorf("%w: %s is absent", errSkip, conf)
	}
	// Volcano's scheduler lists NUMA topologies too: its CRD, which deploy/ leaves out.
	numa := filepath.Join(e.Source, "..", "shared", "volcano", "crds", "nodeinfo.volcano.sh_numatopologies.yaml")
	if err := e.ApplyYAML(numa); err != nil && !strings.Contains(err.Error(), "AlreadyExists") &&
		!strings.Contains(err.Error(), "already exists") {
		return err
	}
	// Volcano's queue controller opens a queue (status.state); no controller runs here.
	if code, out, err := e.Do("PATCH", "/apis/scheduling.volcano.sh/v1beta1/queues/default/status",
		map[string]any{"status": map[string]any{"state": "Open"}}, "application/merge-patch+json"); err != nil || code != 200 {
		return fmt.Errorf("opening the default queue: %v %d %s", err, code, out)
	}
	node := "vcmp-n"
	defer cleanup(e, "vref", []string{node}, nil)
	defer cleanup(e, "vcal", nil, nil)
	if err := e.Create("/api/v1/nodes", Node(node, "4", "16Gi", nil)); err != nil {
		return err
	}
	// The admin's kubeconfig for Volcano (it reads more kinds than Caldera's role allows).
	admin := e.Kubeconfig("vc-admin", false, 0)
	text, _ := os.ReadFile(admin)
	os.WriteFile(admin, []byte(strings.Replace(string(text), "token: caldera-token", "token: "+e.token, 1)), 0600)

	run := func(ns, name string, start func(args []string) (*Caldera, error)) (map[string][]string, string, error) {
		e.Namespace(ns)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		e.Kubelet(ctx, ns)
		args := []string{"--logtostderr", "--scheduler-conf=" + conf, "--scheduler-name=" + name,
			"--leader-elect=false", "--enable-healthz=false", "--enable-metrics=false",
			fmt.Sprintf("--listen-address=127.0.0.1:%d", freePort()),
			fmt.Sprintf("--healthz-address=127.0.0.1:%d", freePort()),
			"--schedule-period=1s", "-v=3"}
		c, err := start(args)
		if err != nil {
			return nil, "", err
		}
		defer c.Stop()
		// Job a: 2 x 1 cpu, minMember 2: bound. Job b: 1 x 3 cpu: 2 cpu are left, so it
		// waits. (One pod: which of several equal pods Volcano tries first hangs on random UIDs.)
		for _, j := range []struct {
			name   string
			n, cpu int
		}{{"a", 2, 1}, {"b", 1, 3}} {
			if err := e.CreatePodGroup(ns, j.name, "default", j.n, ""); err != nil {
				return nil, c.Output(), err
			}
			for i := 0; i < j.n; i++ {
				if err := e.CreatePod(ns, fmt.Sprintf("%s-%d", j.name, i), PodOpts{PodGroup: j.name,
					CPU: fmt.Sprint(j.cpu), Scheduler: name}); err != nil {
					return nil, c.Output(), err
				}
			}
		}
		if _, err := waitBound(e, ns, "a-", 2, 60*time.Second); err != nil {
			return nil, c.Output(), err
		}
		time.Sleep(4 * time.Second) // a few sessions: b's reasons written
		w, err := writes(e, ns)
		return w, c.Output(), err
	}
	ref, refLog, err := run("vref", "volcano-ref", func(args []string) (*Caldera, error) {
		return e.start("volcano", bin, append([]string{"--kubeconfig", admin}, args...))
	})
	if err != nil {
		return fmt.Errorf("volcano-scheduler: %v\n%s", err, tail(refLog, 15))
	}
	cleanup(e, "vref", nil, nil) // frees the node
	got, calLog, err := run("vcal", "caldera-cmp", func(args []string) (*Caldera, error) {
		c, _, err := e.StartVcScheduler("caldera-cmp", e.Kubeconfig("caldera-cmp", false, 0), args...)
		return c, err
	})
	if err != nil {
		return fmt.Errorf("caldera: %v\n%s", err, tail(calLog, 15))
	}
	// Every object must read the same, the PodGroups' conditions included (the gang
	// plugin writes Volcano's "U/N tasks in gang unschedulable: FitError()").
	var diffs []string
	keys := map[string]bool{}
	for k := range ref {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		r, g := strings.Join(ref[k], "\n      "), strings.Join(got[k], "\n      ")
		if r != g {
			d := fmt.Sprintf("%s\n    volcano-scheduler:\n      %s\n    caldera:\n      %s", k, r, g)
			diffs = append(diffs, d)
		}
	}
	if len(diffs) > 0 {
		return errorf("what Caldera writes differs from what volcano-scheduler writes:\n%s", strings.Join(diffs, "\n"))
	}
	return nil
}
