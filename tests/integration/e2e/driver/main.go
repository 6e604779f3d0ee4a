// The end-to-end test (issue 19): Volcano's controllers (vc-controller-manager) and KWOK's
// simulated kubelet on a real kube-apiserver, with Caldera as the scheduler, and the same
// suite with volcano-scheduler in its place as the reference. For each scheduler a fresh rig
// (etcd, kube-apiserver, CRDs, KWOK, vc-controller-manager) is started, the scheduler
// started, the suite run, everything stopped. Then the facts each test records as "must be
// equal" are compared between the schedulers. Run by ../run.sh (meson test e2e-volcano).
// With -fleet it runs the fleet benchmark (fleet.go) instead, with -backlog the backlog
// benchmark (backlog.go).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	var b Bins
	flag.StringVar(&b.Etcd, "etcd", "etcd", "etcd binary")
	flag.StringVar(&b.APIServer, "apiserver", "", "kube-apiserver binary")
	flag.StringVar(&b.KCM, "kube-controller-manager", "", "kube-controller-manager binary")
	flag.StringVar(&b.Kwok, "kwok", "", "KWOK's controller binary (kwok)")
	flag.StringVar(&b.Controller, "vc-controller-manager", "", "Volcano's vc-controller-manager")
	flag.StringVar(&b.VcScheduler, "vc-scheduler", "", "Volcano's vc-scheduler (the reference)")
	flag.StringVar(&b.Caldera, "caldera", "", "caldera binary")
	flag.StringVar(&b.Source, "source", "", "the repository root")
	flag.StringVar(&b.CRDs, "crds", "", "Volcano's CRDs (default SOURCE/../shared/volcano/crds)")
	flag.StringVar(&b.Certs, "work", "", "scratch folder holding the certificates and tokens (run.sh makes them)")
	flag.StringVar(&b.SchedConf, "scheduler-conf", "", "Volcano scheduler config for both (default SOURCE/tests/integration/e2e/volcano-scheduler-e2e.conf)")
	schedulers := flag.String("schedulers", "caldera,volcano", "the schedulers to run the suite with, in order: caldera, volcano")
	only := flag.String("run", "", "run only the tests whose name contains this")
	fleet := flag.Bool("fleet", false, "run the fleet benchmark (fleet.go) instead of the suite")
	var fc FleetConfig
	flag.IntVar(&fc.Nodes, "fleet-nodes", 5000, "fleet benchmark: KWOK nodes (8 cpu, 32Gi each)")
	flag.IntVar(&fc.Pods, "fleet-pods", 20000, "fleet benchmark: pods, in VcJobs of 1 to 16")
	flag.DurationVar(&fc.Arrival, "fleet-arrival", 300*time.Second, "fleet benchmark: the span over which the jobs are submitted")
	flag.Int64Var(&fc.Seed, "fleet-seed", 1, "fleet benchmark: the workload's random seed")
	flag.IntVar(&fc.ControllerQPS, "fleet-controller-qps", 1000, "fleet benchmark: vc-controller-manager's --kube-api-qps (burst twice that); 0: Volcano's default (50)")
	backlog := flag.Bool("backlog", false, "run the backlog benchmark (backlog.go) instead of the suite")
	var bc BacklogConfig
	flag.IntVar(&bc.Nodes, "backlog-nodes", 1000, "backlog benchmark: KWOK nodes (8 cpu, 32Gi each)")
	flag.IntVar(&bc.Pods, "backlog-pods", 5000, "backlog benchmark: pending pods (1 cpu each), made before the scheduler starts")
	flag.IntVar(&bc.Gang, "backlog-gang", 8, "backlog benchmark: pods per PodGroup (its minMember); -backlog-pods must be a multiple of it")
	flag.DurationVar(&bc.Timeout, "backlog-timeout", 10*time.Minute, "backlog benchmark: how long a scheduler has from its start to bind every pod that fits")
	noVolcano := flag.String("no-volcano", "", "why Volcano's binaries cannot be had (run.sh gives it); only -backlog runs then: Caldera alone, on a rig without vc-controller-manager, with deploy/crds.yaml")
	flag.Parse()
	usage := func(err error) {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		os.Exit(2)
	}
	if *fleet && *backlog {
		usage(errors.New("-fleet and -backlog: one benchmark at a time"))
	}
	if *noVolcano != "" {
		if !*backlog {
			usage(fmt.Errorf("-no-volcano (%s): only -backlog runs without Volcano", *noVolcano))
		}
		b.Controller, b.VcScheduler = "", ""
	}
	if b.CRDs == "" {
		b.CRDs = filepath.Join(b.Source, "..", "shared", "volcano", "crds")
		if *noVolcano != "" {
			b.CRDs = filepath.Join(b.Source, "deploy", "crds.yaml")
		}
	}
	if b.SchedConf == "" {
		b.SchedConf = filepath.Join(b.Source, "tests", "integration", "e2e", "volcano-scheduler-e2e.conf")
	}

	// A benchmark's schedulers: those of -schedulers that can run here, and why the others
	// cannot (printed now, and by the backlog under its table).
	pick := func() (which []string, skipped [][2]string) {
		for _, s := range strings.Split(*schedulers, ",") {
			switch s = strings.TrimSpace(s); {
			case s == "":
			case s == "volcano" && *noVolcano != "":
				skipped = append(skipped, [2]string{s, *noVolcano})
			case s == "volcano" && b.VcScheduler == "":
				skipped = append(skipped, [2]string{s, "no -vc-scheduler"})
			default:
				which = append(which, s)
			}
		}
		for _, s := range skipped {
			fmt.Printf("--- SKIP: %s: %s\n", schedLabel(s[0]), s[1])
		}
		return which, skipped
	}
	if *fleet {
		if err := fc.Check(); err != nil {
			usage(err)
		}
		which, _ := pick()
		if RunFleet(b, which, fc) > 0 {
			os.Exit(1)
		}
		return
	}
	if *backlog {
		if err := bc.Check(); err != nil {
			usage(err)
		}
		which, skipped := pick()
		if RunBacklog(b, which, skipped, bc) > 0 {
			os.Exit(1)
		}
		return
	}

	type outcome struct {
		passed bool
		facts  Facts
		err    error
		secs   float64
	}
	results := map[string]map[string]*outcome{} // scheduler -> test -> outcome
	var order []string
	failed := 0
	start := time.Now()
	for _, which := range strings.Split(*schedulers, ",") {
		which = strings.TrimSpace(which)
		if which == "" {
			continue
		}
		if which == "volcano" && b.VcScheduler == "" {
			fmt.Println("--- SKIP: volcano-scheduler reference run: no -vc-scheduler")
			continue
		}
		order = append(order, which)
		results[which] = map[string]*outcome{}
		fmt.Printf("### scheduler: %s\n", which)
		t := time.Now()
		rig, err := NewRig(b, filepath.Join(b.Certs, which))
		if err != nil {
			fmt.Printf("--- FAIL: the rig for %s did not come up: %v\n", which, err)
			failed++
			continue
		}
		fmt.Printf("    rig up in %s (etcd, kube-apiserver, Volcano CRDs, kube-controller-manager, KWOK, vc-controller-manager)\n", secs(time.Since(t)))
		ctx, cancel := context.WithCancel(context.Background())
		h := rig.Watch(ctx)
		sched, err := rig.StartScheduler(which)
		if err != nil {
			fmt.Printf("--- FAIL: %s did not start: %v\n", which, err)
			failed++
			cancel()
			rig.Down()
			continue
		}
		startErr := map[string]error{}
		for _, tc := range suite {
			if tc.Start != nil && (*only == "" || strings.Contains(tc.Name, *only)) {
				startErr[tc.Name] = tc.Start(rig)
			}
		}
		for _, tc := range suite {
			if *only != "" && !strings.Contains(tc.Name, *only) {
				continue
			}
			fmt.Printf("=== RUN   %s/%s\n", which, tc.Name)
			o := &outcome{}
			t := time.Now()
			if o.err = startErr[tc.Name]; o.err == nil {
				o.err = tc.Run(rig, h, &o.facts)
			}
			o.secs = time.Since(t).Seconds()
			if o.err == nil && !sched.Running() {
				o.err = errors.New(which + " exited:\n" + sched.Tail(20))
			}
			results[which][tc.Name] = o
			for _, s := range o.facts.Equal {
				fmt.Printf("    = %s\n", s)
			}
			for _, s := range o.facts.Info {
				fmt.Printf("    . %s\n", s)
			}
			if o.err != nil {
				failed++
				fmt.Printf("--- FAIL: %s/%s (%.1fs)\n    %s\n    %s's log ends:\n      %s\n", which, tc.Name, o.secs,
					strings.ReplaceAll(o.err.Error(), "\n", "\n    "), which,
					strings.ReplaceAll(sched.Tail(15), "\n", "\n      "))
			} else {
				o.passed = true
				fmt.Printf("--- PASS: %s/%s (%.1fs)\n", which, tc.Name, o.secs)
			}
		}
		sched.Stop()
		cancel()
		rig.Down()
		fmt.Printf("    %s: %s in all\n", which, secs(time.Since(t)))
	}

	// The comparison: every fact a test marks as "must be equal" must read the same for
	// each scheduler that passed it.
	if len(order) > 1 {
		ref := order[len(order)-1]
		for _, which := range order[:len(order)-1] {
			for _, tc := range suite {
				a, okA := results[which][tc.Name]
				c, okC := results[ref][tc.Name]
				if !okA || !okC || !a.passed || !c.passed {
					continue
				}
				if strings.Join(a.facts.Equal, "\n") != strings.Join(c.facts.Equal, "\n") {
					failed++
					fmt.Printf("--- FAIL: %s differs between %s and %s:\n    %s:\n      %s\n    %s:\n      %s\n",
						tc.Name, which, ref, which, strings.Join(a.facts.Equal, "\n      "),
						ref, strings.Join(c.facts.Equal, "\n      "))
				} else {
					fmt.Printf("--- SAME: %s: %s and %s agree on %d facts\n", tc.Name, which, ref, len(a.facts.Equal))
				}
			}
		}
	}
	fmt.Printf("e2e: %d failure(s), %s\n", failed, secs(time.Since(start)))
	if failed > 0 {
		os.Exit(1)
	}
}
