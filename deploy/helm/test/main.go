// The render test of deploy/helm/caldera-scheduler (meson test helm-chart): the chart is
// loaded and rendered as `helm template` does (Helm's own loader, values coalescing,
// values.schema.json validation and template engine), and the rendered objects are read
// back strictly into Kubernetes' API types, so a misspelt field fails too.
//
//	helm-render-test -caldera CALDERA_BINARY -source SOURCE_ROOT
//
// Cases: (a) the chart's defaults, (b) testdata/volcano-values.yaml, written with Volcano's
// value names only, (c) bad values, each of which must fail naming the value, (d) a config
// override Caldera refuses, which check-config must catch. Every rendered scheduler config
// goes through `caldera check-config`, and every rendered argument list through Caldera's
// vc-scheduler entry point (it must get past argument parsing to the kubeconfig).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

const (
	release   = "caldera"
	namespace = "volcano-system"
)

var (
	calderaBin string
	sourceRoot string
	chartDir   string
	testdata   string
	scratch    string
	passed     int
	failed     int
)

// rendered holds the objects of one render, read into their API types.
type rendered struct {
	configMap   *corev1.ConfigMap
	sa          *corev1.ServiceAccount
	role        *rbacv1.ClusterRole
	binding     *rbacv1.ClusterRoleBinding
	deployment  *appsv1.Deployment
	service     *corev1.Service
	kinds       []string
	notes       string
	configFile  string // the ConfigMap's scheduler config, written to disk for check-config
	schedConfig string
}

// check collects the failures of one case.
type check struct{ errs []string }

func (c *check) errorf(format string, a ...any) { c.errs = append(c.errs, fmt.Sprintf(format, a...)) }
func (c *check) equal(what string, got, want any) {
	if !reflect.DeepEqual(got, want) {
		c.errorf("%s: got %#v, want %#v", what, got, want)
	}
}

func report(name string, c *check) {
	if len(c.errs) == 0 {
		passed++
		fmt.Printf("PASS %s\n", name)
		return
	}
	failed++
	fmt.Printf("FAIL %s\n", name)
	for _, e := range c.errs {
		fmt.Printf("    %s\n", e)
	}
}

// render renders the chart with the values of valuesFile ("" for the defaults), as
// `helm template caldera CHART -n volcano-system -f valuesFile` does.
func render(ch chart.Charter, valuesFile string) (map[string]string, error) {
	vals := map[string]any{}
	if valuesFile != "" {
		v, err := common.ReadValuesFile(valuesFile)
		if err != nil {
			return nil, err
		}
		vals = v.AsMap()
	}
	top, err := util.ToRenderValues(ch, vals,
		common.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, nil)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, top)
}

// parse reads every rendered document strictly into its API type.
func parse(files map[string]string, name string) (*rendered, error) {
	r := &rendered{}
	for file, text := range files {
		if strings.HasSuffix(file, "NOTES.txt") {
			r.notes = text
			continue
		}
		for _, doc := range strings.Split(text, "\n---") {
			if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
				continue
			}
			doc += "\n" // the split took it: a block scalar ending the document keeps its newline
			var meta struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				return nil, fmt.Errorf("%s: %v", file, err)
			}
			var into any
			switch meta.Kind {
			case "ConfigMap":
				r.configMap = &corev1.ConfigMap{}
				into = r.configMap
			case "ServiceAccount":
				r.sa = &corev1.ServiceAccount{}
				into = r.sa
			case "ClusterRole":
				r.role = &rbacv1.ClusterRole{}
				into = r.role
			case "ClusterRoleBinding":
				r.binding = &rbacv1.ClusterRoleBinding{}
				into = r.binding
			case "Deployment":
				r.deployment = &appsv1.Deployment{}
				into = r.deployment
			case "Service":
				r.service = &corev1.Service{}
				into = r.service
			default:
				return nil, fmt.Errorf("%s: unexpected kind %q", file, meta.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", file, meta.Kind, err)
			}
			r.kinds = append(r.kinds, meta.Kind)
		}
	}
	if r.configMap != nil {
		for k, v := range r.configMap.Data {
			dir := filepath.Join(scratch, name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			r.configFile = filepath.Join(dir, k)
			r.schedConfig = v
			if err := os.WriteFile(r.configFile, []byte(v), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// container returns the Deployment's only container.
func (r *rendered) container(c *check) *corev1.Container {
	if r.deployment == nil {
		c.errorf("no Deployment rendered")
		return nil
	}
	cs := r.deployment.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		c.errorf("the Deployment has %d containers, want 1", len(cs))
		return nil
	}
	return &cs[0]
}

// commonChecks: what every render must have, whatever the values.
func commonChecks(r *rendered, c *check) {
	want := []string{"ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "Service", "ServiceAccount"}
	got := append([]string(nil), r.kinds...)
	slices.Sort(got)
	c.equal("rendered kinds", got, want)
	ct := r.container(c)
	if ct == nil || r.configMap == nil || r.service == nil || r.role == nil || r.binding == nil || r.sa == nil {
		return
	}
	d := r.deployment
	c.equal("Deployment name", d.Name, release+"-scheduler")
	c.equal("Deployment namespace", d.Namespace, namespace)
	c.equal("Deployment label app", d.Labels["app"], "volcano-scheduler")
	c.equal("container command (the image's vc-scheduler entry point runs)", ct.Command, []string(nil))
	pod := d.Spec.Template
	for k, v := range d.Spec.Selector.MatchLabels {
		if pod.Labels[k] != v {
			c.errorf("pod template label %s=%q does not match the selector's %q", k, pod.Labels[k], v)
		}
	}
	c.equal("priorityClassName", pod.Spec.PriorityClassName, "system-cluster-critical")
	c.equal("serviceAccountName", pod.Spec.ServiceAccountName, r.sa.Name)
	c.equal("ClusterRoleBinding subject", r.binding.Subjects,
		[]rbacv1.Subject{{Kind: "ServiceAccount", Name: r.sa.Name, Namespace: namespace}})
	c.equal("ClusterRoleBinding role", r.binding.RoleRef.Name, r.role.Name)

	// The RBAC is deploy/rbac.yaml's, rule for rule.
	if want, err := rbacYAMLRules(); err != nil {
		c.errorf("deploy/rbac.yaml: %v", err)
	} else {
		c.equal("ClusterRole rules (deploy/rbac.yaml's)", r.role.Rules, want)
	}

	// Read-only root, and the config mounted read-only from the ConfigMap.
	if sc := ct.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		c.errorf("container securityContext.readOnlyRootFilesystem is not true: %+v", ct.SecurityContext)
	}
	c.equal("volumeMounts", ct.VolumeMounts,
		[]corev1.VolumeMount{{Name: "scheduler-config", MountPath: "/volcano.scheduler", ReadOnly: true}})
	vols := pod.Spec.Volumes
	if len(vols) != 1 || vols[0].ConfigMap == nil || vols[0].ConfigMap.Name != r.configMap.Name {
		c.errorf("volumes: want the ConfigMap %s only, got %+v", r.configMap.Name, vols)
	}
	if len(ct.Args) < 2 || ct.Args[1] != "--scheduler-conf=/volcano.scheduler/"+filepath.Base(r.configFile) {
		c.errorf("args[1] does not name the ConfigMap's file %s: %q", filepath.Base(r.configFile), ct.Args)
	}

	// Probes on Caldera's /healthz and /readyz, port 11251 (--enable-healthz's default).
	port := map[string]int32{}
	for _, p := range ct.Ports {
		port[p.Name] = p.ContainerPort
	}
	c.equal("healthz port", port["healthz"], int32(11251))
	probe := func(what string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil {
			c.errorf("%s: no httpGet probe", what)
			return
		}
		c.equal(what+" path", p.HTTPGet.Path, path)
		c.equal(what+" port", p.HTTPGet.Port.String(), "healthz")
	}
	probe("livenessProbe", ct.LivenessProbe, "/healthz")
	probe("readinessProbe", ct.ReadinessProbe, "/readyz")

	// The metrics Service as Volcano's: its name, prometheus annotations, port 8080, and a
	// selector that finds the scheduler's pods.
	s := r.service
	c.equal("Service name", s.Name, release+"-scheduler-service")
	c.equal("Service annotations", s.Annotations, map[string]string{
		"prometheus.io/path": "/metrics", "prometheus.io/port": "8080", "prometheus.io/scrape": "true"})
	if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != 8080 || s.Spec.Ports[0].TargetPort.IntValue() != 8080 {
		c.errorf("Service ports: %+v", s.Spec.Ports)
	}
	c.equal("Service selector", s.Spec.Selector, d.Spec.Selector.MatchLabels)

	// The config loads (its plugins found beside the binary), and the arguments are taken
	// by Caldera's vc-scheduler entry point.
	checkConfig(r.configFile, c, true)
	checkArgs(ct.Args, r.configFile, c)
}

func rbacYAMLRules() ([]rbacv1.PolicyRule, error) {
	text, err := os.ReadFile(filepath.Join(sourceRoot, "deploy", "rbac.yaml"))
	if err != nil {
		return nil, err
	}
	for _, doc := range strings.Split(string(text), "\n---") {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &role); err != nil {
			return nil, err
		}
		if role.Kind == "ClusterRole" {
			return role.Rules, nil
		}
	}
	return nil, errors.New("no ClusterRole")
}

// checkConfig runs `caldera check-config FILE`; ok says whether it must pass.
func checkConfig(file string, c *check, ok bool) string {
	out, err := exec.Command(calderaBin, "check-config", file).CombinedOutput()
	if (err == nil) != ok {
		c.errorf("caldera check-config %s: %v (want it to %s):\n%s", file, err,
			map[bool]string{true: "pass", false: "fail"}[ok], out)
	}
	return string(out)
}

// checkArgs runs the Deployment's arguments through a link named vc-scheduler, as the
// image's entry point: with KUBECONFIG naming no file, Caldera must get past argument
// parsing (which refuses an unknown flag or a bad value with CLI11's exit codes, 100 and
// up) and stop at the kubeconfig (exit 1). The config path is the rendered file's here.
func checkArgs(args []string, configFile string, c *check) {
	link := filepath.Join(scratch, "bin", "vc-scheduler")
	if _, err := os.Lstat(link); err != nil {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err == nil {
			err = os.Symlink(calderaBin, link)
		}
		if _, err := os.Lstat(link); err != nil {
			c.errorf("vc-scheduler link: %v", err)
			return
		}
	}
	run := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "--scheduler-conf=") {
			a = "--scheduler-conf=" + configFile
		}
		run[i] = a
	}
	cmd := exec.Command(link, run...)
	env := []string{"KUBECONFIG=" + filepath.Join(scratch, "no-such-kubeconfig")}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "KUBECONFIG=") && !strings.HasPrefix(e, "KUBERNETES_SERVICE_") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out.String(), "cannot read the kubeconfig") {
		c.errorf("vc-scheduler %q: want exit 1 at the kubeconfig, got %v:\n%s", run, err, out.String())
	}
}

func ptrBool(b bool) *bool    { return &b }
func ptrInt64(i int64) *int64 { return &i }

func caseDefaults(ch chart.Charter) {
	c := &check{}
	files, err := render(ch, "")
	if err != nil {
		c.errorf("render: %v", err)
		report("(a) default values", c)
		return
	}
	r, err := parse(files, "defaults")
	if err != nil {
		c.errorf("%v", err)
		report("(a) default values", c)
		return
	}
	commonChecks(r, c)
	if ct := r.container(c); ct != nil {
		c.equal("image", ct.Image, "caldera-scheduler:0.1.0")
		c.equal("imagePullPolicy", ct.ImagePullPolicy, corev1.PullIfNotPresent)
		// Volcano's template's arguments with its default values, in its order.
		c.equal("args", ct.Args, []string{
			"--logtostderr",
			"--scheduler-conf=/volcano.scheduler/volcano-scheduler.conf",
			"--enable-healthz=true",
			"--enable-metrics=true",
			"--leader-elect=false",
			"--kube-api-qps=2000",
			"--kube-api-burst=2000",
			"--schedule-period=1s",
			"--node-worker-threads=20",
			"-v=3",
			"2>&1",
		})
		c.equal("securityContext", ct.SecurityContext, &corev1.SecurityContext{
			RunAsNonRoot: ptrBool(true), RunAsUser: ptrInt64(65532),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			AllowPrivilegeEscalation: ptrBool(false), ReadOnlyRootFilesystem: ptrBool(true)})
		c.equal("resources", ct.Resources, corev1.ResourceRequirements{})
	}
	if d := r.deployment; d != nil {
		c.equal("replicas", *d.Spec.Replicas, int32(1))
		c.equal("imagePullSecrets", d.Spec.Template.Spec.ImagePullSecrets, []corev1.LocalObjectReference(nil))
		c.equal("nodeSelector", d.Spec.Template.Spec.NodeSelector, map[string]string(nil))
	}
	// The ConfigMap holds Volcano's default volcano-scheduler.conf as Volcano's chart ships
	// it (config/volcano-scheduler.conf, a copy of Volcano's file).
	if r.configMap != nil {
		shipped, err := os.ReadFile(filepath.Join(chartDir, "config", "volcano-scheduler.conf"))
		if err != nil {
			c.errorf("%v", err)
		}
		c.equal("ConfigMap data", r.configMap.Data, map[string]string{"volcano-scheduler.conf": string(shipped)})
		c.equal("ConfigMap name", r.configMap.Name, release+"-scheduler-configmap")
		var conf struct {
			Actions string `json:"actions"`
			Tiers   []struct {
				Plugins []struct {
					Name string `json:"name"`
				} `json:"plugins"`
			} `json:"tiers"`
		}
		if err := yaml.Unmarshal([]byte(r.schedConfig), &conf); err != nil {
			c.errorf("the shipped config is not YAML: %v", err)
		}
		c.equal("config actions", conf.Actions, "enqueue, allocate, backfill")
		c.equal("config tiers", len(conf.Tiers), 2)
		out := checkConfig(r.configFile, c, true)
		if !strings.Contains(out, "3 actions, 9 plugins in 2 tiers") {
			c.errorf("check-config of Volcano's default config: %q", out)
		}
	}
	if !strings.Contains(r.notes, "custom.scheduler_enable=false") {
		c.errorf("NOTES.txt does not say to disable Volcano's scheduler: %q", r.notes)
	}
	report("(a) default values", c)
}

func caseVolcanoValues(ch chart.Charter) {
	const name = "(b) testdata/volcano-values.yaml (Volcano's value names)"
	c := &check{}
	files, err := render(ch, filepath.Join(testdata, "volcano-values.yaml"))
	if err != nil {
		c.errorf("render: %v", err)
		report(name, c)
		return
	}
	r, err := parse(files, "volcano-values")
	if err != nil {
		c.errorf("%v", err)
		report(name, c)
		return
	}
	commonChecks(r, c)
	ct := r.container(c)
	d := r.deployment
	if ct == nil {
		report(name, c)
		return
	}
	c.equal("image (registry/name:scheduler tag)", ct.Image, "registry.example.com/batch/caldera-scheduler:0.1.0-rc1")
	c.equal("imagePullPolicy", ct.ImagePullPolicy, corev1.PullAlways)
	c.equal("args", ct.Args, []string{
		"--logtostderr",
		"--scheduler-conf=/volcano.scheduler/volcano-scheduler.conf",
		"--scheduler-name=volcano",
		"--enable-healthz=true",
		"--leader-elect=true",
		"--leader-elect-resource-namespace=" + namespace,
		"--kube-api-qps=500",
		"--kube-api-burst=1000000",
		"--schedule-period=500ms",
		"--percentage-nodes-to-find=0",
		"--ignored-provisioners=rancher.io/local-path,hostpath.csi.k8s.io",
		"-v=4",
		"2>&1",
	})
	ps := d.Spec.Template.Spec
	c.equal("replicas", *d.Spec.Replicas, int32(2))
	c.equal("imagePullSecrets", ps.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "regcred"}})
	// default_ns stands in for the unset scheduler_ns; scheduler_tolerations wins over
	// default_tolerations (Volcano's rule: replaced, not merged).
	c.equal("nodeSelector", ps.NodeSelector, map[string]string{"nodetype": "criticalservices"})
	c.equal("tolerations", ps.Tolerations, []corev1.Toleration{
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch-control", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	})
	if a := ps.Affinity; a == nil || a.PodAntiAffinity == nil ||
		len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 ||
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey != "kubernetes.io/hostname" {
		c.errorf("affinity: %+v", ps.Affinity)
	}
	c.equal("pod securityContext (scheduler_sc)", ps.SecurityContext, &corev1.PodSecurityContext{
		RunAsUser: ptrInt64(2000), RunAsGroup: ptrInt64(2000), FSGroup: ptrInt64(2000)})
	// scheduler_main_csc replaces default_csc; the read-only root is added.
	c.equal("container securityContext (scheduler_main_csc + read-only root)", ct.SecurityContext,
		&corev1.SecurityContext{RunAsNonRoot: ptrBool(true), RunAsUser: ptrInt64(2000),
			AllowPrivilegeEscalation: ptrBool(false), ReadOnlyRootFilesystem: ptrBool(true)})
	if q := ct.Resources.Limits[corev1.ResourceMemory]; q.String() != "4Gi" {
		c.errorf("resources: %+v", ct.Resources)
	}
	if q := ct.Resources.Requests[corev1.ResourceCPU]; q.String() != "500m" {
		c.errorf("resources: %+v", ct.Resources)
	}
	c.equal("Deployment labels", d.Labels, map[string]string{"app": "volcano-scheduler", "tier": "control", "team": "batch"})
	c.equal("pod labels", d.Spec.Template.Labels, map[string]string{
		"app": "volcano-scheduler", "app.kubernetes.io/instance": release,
		"app.kubernetes.io/name": "caldera-scheduler", "sidecar.istio.io/inject": "false", "team": "batch"})
	c.equal("ConfigMap labels (common_labels)", r.configMap.Labels, map[string]string{"team": "batch"})
	c.equal("ClusterRole labels (common_labels)", r.role.Labels, map[string]string{"team": "batch"})
	for _, p := range ct.Ports {
		if p.Name == "metrics" {
			c.errorf("a metrics port with scheduler_metrics_enable false")
		}
	}
	pol := corev1.IPFamilyPolicyPreferDualStack
	c.equal("Service ipFamilyPolicy", r.service.Spec.IPFamilyPolicy, &pol)
	c.equal("Service ipFamilies", r.service.Spec.IPFamilies, []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol})
	// The override is the config, as given.
	v, err := common.ReadValuesFile(filepath.Join(testdata, "volcano-values.yaml"))
	if err == nil {
		override, _ := v.PathValue("custom.scheduler_config_override")
		want, _ := override.(string)
		c.equal("ConfigMap data (the override)", r.configMap.Data, map[string]string{"volcano-scheduler.conf": want})
		if !strings.Contains(want, "preempt") {
			c.errorf("the test's override should differ from the default: %q", want)
		}
	}
	out := checkConfig(r.configFile, c, true)
	if !strings.Contains(out, "4 actions, 7 plugins in 2 tiers") {
		c.errorf("check-config of the override: %q", out)
	}
	report(name, c)
}

// caseBad: values that must not render, each with the words its error must contain (the
// value's name, and Helm's or the chart's reason).
func caseBad(ch chart.Charter) {
	cases := []struct {
		name, values string
		want         []string
	}{
		{"unknown key (misspelt scheduler_replicas)", "custom:\n  scheduler_replica: 2\n",
			[]string{"at '/custom'", "additional properties 'scheduler_replica' not allowed"}},
		{"wrong type", "custom:\n  scheduler_replicas: two\n",
			[]string{"at '/custom/scheduler_replicas'", "got string, want integer"}},
		{"another component's Volcano value", "custom:\n  controller_replicas: 2\n",
			[]string{"additional properties 'controller_replicas' not allowed"}},
		{"unknown top-level key", "scheduler:\n  replicas: 2\n",
			[]string{"additional properties 'scheduler' not allowed"}},
		{"not a pull policy", "basic:\n  image_pull_policy: Sometimes\n",
			[]string{"at '/basic/image_pull_policy'", "Always"}},
		{"not a duration", "custom:\n  scheduler_schedule_period: 1 second\n",
			[]string{"at '/custom/scheduler_schedule_period'"}},
		{"percentage out of range", "custom:\n  scheduler_percentage_nodes_to_find: 150\n",
			[]string{"at '/custom/scheduler_percentage_nodes_to_find'", "maximum"}},
		{"a label that is not a string", "custom:\n  common_labels:\n    tier: 1\n",
			[]string{"at '/custom/common_labels/tier'", "want string"}},
		{"misspelt toleration field", "custom:\n  scheduler_tolerations:\n  - key: a\n    operater: Exists\n",
			[]string{"at '/custom/scheduler_tolerations/0'", "'operater' not allowed"}},
		{"pprof (Caldera has none)", "custom:\n  scheduler_pprof_enable: true\n",
			[]string{"custom.scheduler_pprof_enable: Caldera has no pprof endpoint"}},
		{"feature gates", "custom:\n  scheduler_feature_gates: \"Foo=true\"\n",
			[]string{"custom.scheduler_feature_gates=\"Foo=true\": Caldera has no feature gates"}},
		{"sharding", "custom:\n  scheduler_sharding_mode: hard\n",
			[]string{"custom.scheduler_sharding_mode=\"hard\""}},
		{"GOMEMLIMIT", "custom:\n  go_memlimit_enable: true\n",
			[]string{"custom.go_memlimit_enable: Caldera is not a Go program"}},
		{"two replicas without leader election", "custom:\n  scheduler_replicas: 2\n",
			[]string{"custom.scheduler_replicas=2 needs custom.leader_elect_enable=true"}},
		{"a config file the chart lacks", "basic:\n  scheduler_config_file: config/nope.conf\n",
			[]string{"basic.scheduler_config_file=\"config/nope.conf\": no such file in the chart"}},
	}
	for i, tc := range cases {
		name := "(c) refused: " + tc.name
		c := &check{}
		file := filepath.Join(scratch, fmt.Sprintf("bad-%d.yaml", i))
		if err := os.WriteFile(file, []byte(tc.values), 0o644); err != nil {
			c.errorf("%v", err)
			report(name, c)
			continue
		}
		_, err := render(ch, file)
		if err == nil {
			c.errorf("rendered without an error:\n%s", tc.values)
		} else {
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					c.errorf("the error does not say %q:\n%v", w, err)
				}
			}
			fmt.Printf("    %s -> %s\n", strings.TrimSpace(strings.ReplaceAll(tc.values, "\n", " ")), oneLine(err))
		}
		report(name, c)
	}
}

func oneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	s = strings.ReplaceAll(s, "\n", " | ")
	return s
}

// caseBadConfig: a config override Caldera cannot load renders (Helm does not know the
// config's meaning) and check-config refuses it: the check-config step above is not idle.
func caseBadConfig(ch chart.Charter) {
	const name = "(d) a config override naming an unknown plugin: check-config refuses it"
	c := &check{}
	file := filepath.Join(scratch, "bad-config.yaml")
	text := "custom:\n  scheduler_config_override: |\n    actions: \"enqueue, allocate\"\n    tiers:\n    - plugins:\n      - name: gangg\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		c.errorf("%v", err)
	} else if files, err := render(ch, file); err != nil {
		c.errorf("render: %v", err)
	} else if r, err := parse(files, "bad-config"); err != nil {
		c.errorf("%v", err)
	} else {
		out := checkConfig(r.configFile, c, false)
		if !strings.Contains(out, "unknown plugin 'gangg'") {
			c.errorf("check-config: %q", out)
		}
	}
	report(name, c)
}

// caseDisabled: custom.scheduler_enable=false renders nothing, as in Volcano's chart.
func caseDisabled(ch chart.Charter) {
	const name = "(e) custom.scheduler_enable=false renders no object"
	c := &check{}
	file := filepath.Join(scratch, "disabled.yaml")
	if err := os.WriteFile(file, []byte("custom:\n  scheduler_enable: false\n"), 0o644); err != nil {
		c.errorf("%v", err)
	} else if files, err := render(ch, file); err != nil {
		c.errorf("render: %v", err)
	} else if r, err := parse(files, "disabled"); err != nil {
		c.errorf("%v", err)
	} else {
		c.equal("rendered kinds", r.kinds, []string(nil))
	}
	report(name, c)
}

func main() {
	flag.StringVar(&calderaBin, "caldera", "", "the caldera binary (its plugins beside it, as in a build tree)")
	flag.StringVar(&sourceRoot, "source", "", "the source tree (deploy/helm/caldera-scheduler, deploy/rbac.yaml)")
	printValues := flag.String("template", "", "only print the chart rendered with this values file (\"-\": the defaults), as `helm template` would, and exit")
	flag.Parse()
	if (calderaBin == "" && *printValues == "") || sourceRoot == "" {
		fmt.Fprintln(os.Stderr, "usage: helm-render-test -caldera CALDERA_BINARY -source SOURCE_ROOT")
		os.Exit(2)
	}
	var err error
	if calderaBin, err = filepath.Abs(calderaBin); calderaBin != "" && err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	chartDir = filepath.Join(sourceRoot, "deploy", "helm", "caldera-scheduler")
	testdata = filepath.Join(sourceRoot, "deploy", "helm", "test", "testdata")
	scratch, err = os.MkdirTemp("", "caldera-helm-test.")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer os.RemoveAll(scratch)

	ch, err := loader.Load(chartDir)
	if err != nil {
		fmt.Printf("FAIL loading the chart %s: %v\n", chartDir, err)
		fmt.Println("0 passed, 1 failed")
		os.RemoveAll(scratch)
		os.Exit(1)
	}
	if *printValues != "" {
		if *printValues == "-" {
			*printValues = ""
		}
		files, err := render(ch, *printValues)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.RemoveAll(scratch)
			os.Exit(1)
		}
		names := make([]string, 0, len(files))
		for n := range files {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if strings.TrimSpace(files[n]) != "" && !strings.HasSuffix(n, "NOTES.txt") {
				fmt.Printf("---\n# Source: %s\n%s\n", n, strings.TrimSpace(files[n]))
			}
		}
		os.RemoveAll(scratch)
		return
	}
	caseDefaults(ch)
	caseVolcanoValues(ch)
	caseBad(ch)
	caseBadConfig(ch)
	caseDisabled(ch)
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.RemoveAll(scratch)
		os.Exit(1)
	}
}
