package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A plugin that crashes, on the Kubernetes backend (docs/ISOLATION.md). faulty_segv (from
// tests/integration/reload/plugins/faulty.c) passes every check and the reload trial, and
// dies of SIGSEGV in its predicate as soon as a session places a pod named boom-*.
//  1. Caldera runs the test policy, then the config gains faulty_segv (a reload); plain
//     pods are bound.
//  2. boom-0 arrives: the session placing it dies in its worker. The log, the status file
//     (--status-file) and a PluginFault event on boom-0 name the plugin, the point and the
//     node; Caldera is alive, quarantines the file and falls back to the set that ran
//     before, which binds boom-0 and later pods. A repaired build (other bytes) at the
//     same path lifts the quarantine and the configured set runs again. Then every other
//     kind of fault (abort, exit, hang, memory, NaN score, status code, wild reason pointer,
//     C++ exception), one plugin each, the same way. SIGTERM ends it within a second.
//  3. Start-up: a replica whose config names faulty_segv from the start meets a pending
//     boom pod in its first session. With no set that ever completed a session it
//     schedules nothing, says why, reports unhealthy and releases its Lease; with
//     on_plugin_fault = "disable" it binds the pod without the plugin, saying so.
func testPluginFaults(e *Env) error {
	if e.FaultPlugins == "" {
		return errorf("no -fault-plugins folder given (the faulty test plugins' build folder)")
	}
	ns := "pfault"
	// faulty_segv crashes on node n2 (faulty.c).
	nodes := []string{"n1", "n2"}
	defer cleanup(e, ns, nodes, nil)
	e.Namespace(ns)
	for _, n := range nodes {
		if err := e.Create("/api/v1/nodes", Node(n, "8", "16Gi", nil)); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Kubelet(ctx, ns)

	// The plugin folder: the faulty build under its plugin name's file.
	dir := e.path("fault-plugins")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	put := func(build string) error {
		return copyFile(filepath.Join(e.FaultPlugins, build+".so"), filepath.Join(dir, "faulty_segv.so"))
	}
	if err := put("faulty_segv"); err != nil {
		return err
	}
	builtin := filepath.Join(filepath.Dir(e.CalderaBin), "..", "plugins")
	base, err := os.ReadFile(e.Config)
	if err != nil {
		return err
	}
	// The test policy, with the plugin folders, the supervision settings, and the given
	// faulty plugins appended to the last tier.
	config := func(name string, scheduler string, faulty ...string) string {
		text := strings.Replace(string(base), "[scheduler]\n", fmt.Sprintf(
			"[scheduler]\nplugin_dirs = [%q, %q]\nsession_timeout = \"3s\"\n"+
				"session_memory_limit = \"512Mi\"\n%s", builtin, dir, scheduler), 1)
		for _, f := range faulty {
			text += fmt.Sprintf("[[tiers.plugins]]\nname = %q\n", f)
		}
		p := e.path(name + ".toml")
		os.WriteFile(p+".tmp", []byte(text), 0o644)
		os.Rename(p+".tmp", p) // a rename: the reload watch sees one change
		return p
	}

	// ---- 1. the running policy gains faulty_segv ----
	cfg := config("pfault", "")
	status := e.path("pfault-status.json")
	c, err := e.startWithConfig("pfault", cfg, "--status-file", status)
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := c.WaitLog("initial sync done", 30*time.Second); err != nil {
		return err
	}
	if err := e.CreatePod(ns, "plain-0", PodOpts{CPU: "1"}); err != nil {
		return err
	}
	if _, err := waitBound(e, ns, "plain-0", 1, 20*time.Second); err != nil {
		return err
	}
	config("pfault", "", "faulty_segv")
	if err := c.WaitLog("accepted", 20*time.Second); err != nil {
		return err
	}
	if err := WaitFor(10*time.Second, "the reload that adds faulty_segv", func() (bool, string) {
		return strings.Contains(c.Output(), "tiers ") && strings.Contains(c.Output(), "faulty_segv]"), ""
	}); err != nil {
		return errorf("%v\n%s", err, tail(c.Output(), 10))
	}

	// ---- 2. the fault ----
	if err := e.CreatePod(ns, "boom-0", PodOpts{CPU: "1"}); err != nil {
		return err
	}
	if err := c.WaitLog("dropped: plugin faulty_segv, point predicate, node n2: SIGSEGV", 30*time.Second); err != nil {
		return errorf("%v\n%s", err, tail(c.Output(), 20))
	}
	line := grep(c.Output(), "dropped: plugin faulty_segv")
	if !strings.Contains(line, "SIGSEGV") || !strings.Contains(line, "task pfault/boom-0") {
		return errorf("the fault's log line does not say SIGSEGV and the task: %s", line)
	}
	if !c.Running() {
		return errorf("caldera exited after the fault:\n%s", tail(c.Output(), 20))
	}
	// The pod hears of it.
	err = WaitFor(15*time.Second, "a PluginFault event on boom-0", func() (bool, string) {
		evs, err := e.Events(ns)
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range evs {
			if ev.Reason == "PluginFault" && ev.InvolvedObject.Name == "boom-0" {
				ok := strings.Contains(ev.Message, "plugin faulty_segv, point predicate, node n2") &&
					strings.Contains(ev.Message, "SIGSEGV")
				return ok, ev.Message
			}
		}
		return false, fmt.Sprint(len(evs), " events")
	})
	if err != nil {
		return err
	}
	// The fallback set (the one before the reload) binds it; the status says so.
	if _, err := waitBound(e, ns, "boom-0", 1, 20*time.Second); err != nil {
		return errorf("%v\n%s", err, tail(c.Output(), 15))
	}
	st, err := readStatus(status)
	if err != nil {
		return err
	}
	if st.Supervisor.Mode != "fallback" || !st.Supervisor.Healthy || len(st.Supervisor.Quarantine) != 1 ||
		st.Supervisor.Quarantine[0].Plugin != "faulty_segv" || len(st.Supervisor.RecentFaults) == 0 ||
		st.Supervisor.RecentFaults[len(st.Supervisor.RecentFaults)-1].Point != "predicate" ||
		st.Supervisor.RecentFaults[len(st.Supervisor.RecentFaults)-1].Node != "n2" {
		return errorf("status after the fault: %+v", st.Supervisor)
	}
	if err := e.CreatePod(ns, "plain-1", PodOpts{CPU: "1"}); err != nil {
		return err
	}
	if _, err := waitBound(e, ns, "plain-1", 1, 20*time.Second); err != nil {
		return err
	}
	// A repaired build lifts the quarantine; the configured set, faulty_segv included, runs.
	if err := put("faulty_repaired"); err != nil {
		return err
	}
	if err := c.WaitLog("quarantine lifted: plugin faulty_segv", 20*time.Second); err != nil {
		return errorf("%v\n%s", err, tail(c.Output(), 15))
	}
	if err := e.CreatePod(ns, "boom-1", PodOpts{CPU: "1"}); err != nil {
		return err
	}
	if _, err := waitBound(e, ns, "boom-1", 1, 20*time.Second); err != nil {
		return err
	}
	if st, err = readStatus(status); err != nil || st.Supervisor.Mode != "configured" {
		return errorf("status after the repair: %+v %v", st.Supervisor, err)
	}
	// Every other kind of fault, one plugin each (faulty.c, faulty_throw.cpp): it joins the
	// policy by a reload, a boom pod makes it fault, the log and an event on the pod name it
	// and what happened, and the set before binds the pod.
	kinds := []struct{ build, point, what string }{
		{"faulty_abort", "predicate", "SIGABRT"},
		{"faulty_exit", "predicate", "exit(0) called before the session ended"},
		{"faulty_hang", "node_order", "no result after 3s (session_timeout); killed"},
		{"faulty_alloc", "predicate", ""}, // SIGABRT, or the sanitizer's own exit, under the cap
		{"faulty_nan", "node_order", "broke the ABI contract: score NaN"},
		{"faulty_code", "predicate", "broke the ABI contract: returned status code 42"},
		{"faulty_reason", "predicate", "SIGSEGV"},
		{"faulty_throw", "predicate", "C++ exception escaped: license check failed"},
	}
	for i, k := range kinds {
		if err := copyFile(filepath.Join(e.FaultPlugins, k.build+".so"), filepath.Join(dir, k.build+".so")); err != nil {
			return err
		}
		before := len(c.Output())
		config("pfault", "", "faulty_segv", k.build)
		if err := WaitFor(20*time.Second, "the reload that adds "+k.build, func() (bool, string) {
			out := c.Output()[before:]
			return strings.Contains(out, "accepted") && strings.Contains(out, k.build+"]"), ""
		}); err != nil {
			return errorf("%v\n%s", err, tail(c.Output(), 10))
		}
		pod := fmt.Sprintf("boom-k%d", i)
		if err := e.CreatePod(ns, pod, PodOpts{CPU: "100m"}); err != nil {
			return err
		}
		want := fmt.Sprintf("dropped: plugin %s, point %s", k.build, k.point)
		if err := WaitFor(30*time.Second, want, func() (bool, string) {
			return strings.Contains(c.Output()[before:], want), ""
		}); err != nil {
			return errorf("%v\n%s", err, tail(c.Output(), 15))
		}
		line := grep(c.Output()[before:], want)
		if !strings.Contains(line, k.what) || !strings.Contains(line, "task pfault/"+pod) {
			return errorf("%s: want %q and the task in: %s", k.build, k.what, line)
		}
		if err := WaitFor(15*time.Second, "a PluginFault event on "+pod, func() (bool, string) {
			evs, _ := e.Events(ns)
			for _, ev := range evs {
				if ev.Reason == "PluginFault" && ev.InvolvedObject.Name == pod &&
					strings.Contains(ev.Message, "plugin "+k.build+", point "+k.point) {
					return true, ""
				}
			}
			return false, ""
		}); err != nil {
			return err
		}
		if _, err := waitBound(e, ns, pod, 1, 20*time.Second); err != nil {
			return errorf("%s: %v\n%s", k.build, err, tail(c.Output(), 15))
		}
		if !c.Running() {
			return errorf("caldera exited after %s:\n%s", k.build, tail(c.Output(), 20))
		}
		fmt.Printf("    %s: %s\n", k.build, line[strings.Index(line, "dropped: "):])
	}

	t0 := time.Now()
	c.Stop()
	if took := time.Since(t0); took > time.Second {
		return errorf("SIGTERM took %v", took)
	}

	// ---- 3. a fault in the first session, with and without on_plugin_fault = "disable" ----
	if err := put("faulty_segv"); err != nil {
		return err
	}
	if err := e.CreatePod(ns, "boom-2", PodOpts{CPU: "1"}); err != nil {
		return err
	}
	lease := []string{"--leader-elect", "--leader-elect-resource-namespace", "kube-system",
		"--leader-elect-resource-name", "caldera-pfault", "--leader-elect-lease-duration", "4",
		"--leader-elect-renew-deadline", "3", "--leader-elect-retry-period", "1", "--identity", "pfault-start"}
	holder := func() string { return e.LeaseHolder("kube-system", "caldera-pfault") }
	status = e.path("pfault-start-status.json")
	s, err := e.startWithConfig("pfault-start", config("pfault-start", "", "faulty_segv"),
		append(lease, "--status-file", status)...)
	if err != nil {
		return err
	}
	defer s.Stop()
	if err := s.WaitLog("no session: plugin faulty_segv is quarantined", 40*time.Second); err != nil {
		return errorf("%v\n%s", err, tail(s.Output(), 20))
	}
	if !strings.Contains(s.Output(), "Lease kube-system/caldera-pfault released") {
		if err := s.WaitLog("Lease kube-system/caldera-pfault released", 10*time.Second); err != nil {
			return errorf("%v\n%s", err, tail(s.Output(), 20))
		}
	}
	if h := holder(); h != "" {
		return errorf("the Lease is still held by %q after the start-up fault", h)
	}
	if st, err := readStatus(status); err != nil || st.Supervisor.Healthy || st.Supervisor.Mode != "none" {
		return errorf("status after the start-up fault: %+v %v", st.Supervisor, err)
	}
	if b, _ := bound(e, ns, "boom-2"); len(b) != 0 {
		return errorf("boom-2 bound by a replica with no plugin set it may run: %v", b)
	}
	if !s.Running() {
		return errorf("caldera exited after the start-up fault:\n%s", tail(s.Output(), 20))
	}
	s.Stop()

	d, err := e.startWithConfig("pfault-disable", config("pfault-disable", "on_plugin_fault = \"disable\"\n", "faulty_segv"),
		lease...)
	if err != nil {
		return err
	}
	defer d.Stop()
	if _, err := waitBound(e, ns, "boom-2", 1, 40*time.Second); err != nil {
		return errorf("%v\n%s", err, tail(d.Output(), 20))
	}
	if !strings.Contains(d.Output(), "without-quarantined") || holder() != "pfault-start" {
		return errorf("want the set without faulty_segv said in the log and the Lease held (holder %q):\n%s",
			holder(), tail(d.Output(), 20))
	}
	return nil
}

// startWithConfig starts Caldera as StartCaldera does, with another config file.
func (e *Env) startWithConfig(name, config string, extra ...string) (*Caldera, error) {
	saved := e.Config
	e.Config = config
	defer func() { e.Config = saved }()
	return e.StartCaldera(name, e.Kubeconfig(name, false, 0), extra...)
}

type supervisorStatus struct {
	Supervisor struct {
		Mode       string `json:"mode"`
		Healthy    bool   `json:"healthy"`
		Quarantine []struct {
			Plugin string `json:"plugin"`
			SHA256 string `json:"sha256"`
		} `json:"quarantine"`
		RecentFaults []struct {
			Plugin string `json:"plugin"`
			Point  string `json:"point"`
			Node   string `json:"node"`
		} `json:"recent_faults"`
	} `json:"supervisor"`
}

func readStatus(path string) (supervisorStatus, error) {
	var st supervisorStatus
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

// copyFile writes src's bytes to dst through a rename (a new inode, mode 0644).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
