// The rig: etcd, kube-apiserver, KWOK's controller and Volcano's vc-controller-manager on
// loopback, one fresh set per scheduler under test, plus that scheduler (Caldera or
// volcano-scheduler). The REST client is plain JSON over HTTPS with a bearer token (no
// client-go), as in ../../k8s/driver/env.go, whose start-up of etcd and kube-apiserver this
// copies (that driver is a separate program; its files are not shared).
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Bins: the programs the rig runs.
type Bins struct {
	Etcd, APIServer, KCM, Kwok, Controller, VcScheduler, Caldera string
	Source                                                       string // the repository root
	CRDs                                                         string // Volcano's CRDs (../shared/volcano/crds)
	Certs                                                        string // run.sh's scratch folder: ca.crt, serving.*, sa.*, tokens.csv
	SchedConf                                                    string // the Volcano scheduler config both schedulers read
	// ControllerArgs: more vc-controller-manager flags (the fleet benchmark raises its
	// client's rate limit); none for the suite.
	ControllerArgs []string
}

type Rig struct {
	B    Bins
	Dir  string // this rig's folder: etcd data and every process's log
	port int    // kube-apiserver's

	client *http.Client
	token  string
	procs  []*Proc // in start order; stopped in reverse
}

// Proc is a process of the rig; its output goes to Log.
type Proc struct {
	Name string
	Log  string
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *Proc) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Stop: SIGTERM, then SIGKILL after 10 s.
func (p *Proc) Stop() {
	if !p.Running() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// Pid: the process's id, for its CPU and memory in /proc (fleet.go).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

func (p *Proc) Tail(n int) string {
	b, _ := os.ReadFile(p.Log)
	return tail(string(b), n)
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (r *Rig) path(name string) string { return filepath.Join(r.Dir, name) }
func (r *Rig) cert(name string) string { return filepath.Join(r.B.Certs, name) }
func (r *Rig) URL() string             { return fmt.Sprintf("https://127.0.0.1:%d", r.port) }

// start runs bin with args, output in DIR/name.log; the process dies with the driver.
func (r *Rig) start(name, bin string, args ...string) (*Proc, error) {
	logPath := r.path(name + ".log")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	p := &Proc{Name: name, Log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); log.Close(); close(p.done) }()
	r.procs = append(r.procs, p)
	return p, nil
}

// NewRig starts etcd, kube-apiserver, installs Volcano's CRDs, the RBAC of deploy/rbac.yaml
// (Caldera runs as the user caldera-scheduler with that role), the queues root and default
// and the priority classes, then starts KWOK, kube-controller-manager and
// vc-controller-manager (unless b.Controller is empty).
func NewRig(b Bins, dir string) (*Rig, error) {
	if err := os.MkdirAll(dir, 0755); err != nil {
		return nil, err
	}
	r := &Rig{B: b, Dir: dir, token: "admin-token"}
	ca, err := os.ReadFile(r.cert("ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	r.client = &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 32},
	}
	if err := r.up(); err != nil {
		r.Down()
		return nil, err
	}
	return r, nil
}

func (r *Rig) up() error {
	// etcd
	etcdPort, peer := freePort(), freePort()
	etcd, err := r.start("etcd", r.B.Etcd,
		"--name", "e1", "--data-dir", r.path("etcd-data"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdPort),
		"--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", etcdPort),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-cluster", fmt.Sprintf("e1=http://127.0.0.1:%d", peer),
		// etcd fsyncs every write; on a shared CI disk that is what makes a test slow.
		"--unsafe-no-fsync")
	if err != nil {
		return err
	}
	if err := waitFor(30*time.Second, "etcd healthy", func() (bool, string) {
		if !etcd.Running() {
			return false, "etcd exited: " + etcd.Tail(5)
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/health", etcdPort))
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	}); err != nil {
		return err
	}

	// kube-apiserver
	r.port = freePort()
	api, err := r.start("kube-apiserver", r.B.APIServer,
		"--etcd-servers", fmt.Sprintf("http://127.0.0.1:%d", etcdPort),
		"--bind-address", "127.0.0.1",
		"--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(r.port),
		"--tls-cert-file", r.cert("serving.crt"),
		"--tls-private-key-file", r.cert("serving.key"),
		"--client-ca-file", r.cert("ca.crt"),
		"--token-auth-file", r.cert("tokens.csv"),
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", r.cert("sa.pub"),
		"--service-account-signing-key-file", r.cert("sa.key"),
		"--service-cluster-ip-range", "10.96.0.0/16",
		// kube-controller-manager runs only the controllers the tests need (below): no
		// ServiceAccount controller makes the "default" accounts the ServiceAccount
		// admission plugin would require of every pod, and no node lifecycle controller
		// lifts the not-ready taint TaintNodesByCondition puts on new nodes.
		"--disable-admission-plugins", "ServiceAccount,TaintNodesByCondition",
		// client-go 1.35+ (KWOK's) opens its informers with a watch-list stream. On
		// Debian's etcd 3.4 (no RequestWatchProgress) kube-apiserver accepts that watch
		// and ends it at once with an error, which the client retries with growing
		// backoff instead of falling back to list+watch: KWOK then sees new nodes and
		// pods tens of seconds late. With the server's WatchList gate off the request is
		// refused outright and clients fall back to list+watch at once.
		"--feature-gates", "WatchList=false",
		"--cert-dir", r.path("apiserver-certs"),
		"--profiling=false",
		"--v", "1")
	if err != nil {
		return err
	}
	if err := waitFor(90*time.Second, "kube-apiserver ready", func() (bool, string) {
		if !api.Running() {
			return false, "kube-apiserver exited: " + api.Tail(5)
		}
		code, body, err := r.Do("GET", "/readyz", nil, "")
		if err != nil {
			return false, err.Error()
		}
		return code == 200, string(body)
	}); err != nil {
		return err
	}

	// Volcano's CRDs as Volcano's chart installs them (all of them: the controllers list
	// Jobs, Commands, CronJobs, JobFlows, HyperNodes ... and stop if one is missing); or,
	// for a rig without Volcano's controllers (the backlog benchmark without
	// ../shared/volcano), one file: deploy/crds.yaml.
	crds, _ := filepath.Glob(filepath.Join(r.B.CRDs, "*.yaml"))
	flow, _ := filepath.Glob(filepath.Join(r.B.CRDs, "jobflow", "*.yaml"))
	crds = append(crds, flow...)
	if st, err := os.Stat(r.B.CRDs); err == nil && st.Mode().IsRegular() {
		crds = []string{r.B.CRDs}
	}
	if len(crds) == 0 {
		return fmt.Errorf("no CRDs in %s", r.B.CRDs)
	}
	var names []string
	for _, f := range crds {
		n, err := r.ApplyYAMLFile(f, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
		if err != nil {
			return err
		}
		names = append(names, n...)
	}
	for _, crd := range names {
		if err := waitFor(30*time.Second, "CRD "+crd+" established", func() (bool, string) {
			var c struct {
				Status struct {
					Conditions []struct{ Type, Status string }
				}
			}
			if err := r.Get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crd, &c); err != nil {
				return false, err.Error()
			}
			for _, cond := range c.Status.Conditions {
				if cond.Type == "Established" && cond.Status == "True" {
					return true, ""
				}
			}
			return false, "not established"
		}); err != nil {
			return err
		}
	}
	if err := r.applyRBAC(); err != nil {
		return err
	}
	// The queues volcano-scheduler creates at its start (root, the parent the queue
	// controller looks for, and default, where jobs go when none is named); Caldera
	// expects them as after Volcano's chart. Created here so both start from the same
	// objects.
	for _, q := range []string{"root", "default"} {
		if err := r.Create("/apis/scheduling.volcano.sh/v1beta1/queues", queueObj(q, 1)); err != nil {
			return err
		}
	}
	for name, v := range map[string]int{"low": 10, "high": 1000} {
		if err := r.Create("/apis/scheduling.k8s.io/v1/priorityclasses", map[string]any{
			"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
			"metadata": map[string]any{"name": name}, "value": v,
		}); err != nil {
			return err
		}
	}

	admin := r.Kubeconfig("admin", "admin-token")
	// KWOK: every node is a KWOK node; its stages (../stages.yaml) make nodes Ready, bound
	// pods Running at once, and complete the pods that carry e2e.caldera.test/run-for.
	kwok, err := r.start("kwok", r.B.Kwok, "--kubeconfig", admin,
		"--config", filepath.Join(r.B.Source, "tests", "integration", "e2e", "stages.yaml"),
		"--manage-all-nodes=true", "--node-lease-duration-seconds=0")
	if err != nil {
		return err
	}
	// Of Kubernetes' controllers, those a Deployment needs (deployment, replicaset) and the
	// garbage collector (owned pods and PodGroups go with their owner). No node
	// lifecycle controller: KWOK's nodes send no heartbeats (no leases) and would be
	// tainted unreachable; no service-account controllers (no ServiceAccount admission).
	kcm, err := r.start("kube-controller-manager", r.B.KCM, "--kubeconfig", admin,
		"--controllers=deployment-controller,replicaset-controller,garbage-collector-controller",
		"--leader-elect=false", "--secure-port=0", "--use-service-account-credentials=false", "--v=1")
	if err != nil {
		return err
	}
	if r.B.Controller == "" {
		// No Volcano (the backlog benchmark without ../shared/volcano): nothing opens the
		// queues, and Caldera reads a queue without a state as Open. Whether KWOK is up
		// shows when the benchmark's nodes turn Ready.
		return nil
	}
	// Volcano's controllers (job, podgroup, queue, gc, cronjob, jobflow, ...), as its chart
	// runs them but without leader election and with their HTTP ports on loopback.
	ctl, err := r.start("vc-controller-manager", r.B.Controller, append([]string{"--kubeconfig", admin,
		"--leader-elect=false", "--logtostderr", "-v", "3",
		fmt.Sprintf("--listen-address=127.0.0.1:%d", freePort()),
		fmt.Sprintf("--healthz-address=127.0.0.1:%d", freePort())}, r.B.ControllerArgs...)...)
	if err != nil {
		return err
	}
	// Up when the queue controller has opened the default queue (status.state Open): the
	// controllers have synced, and proportion refuses jobs of a queue that is not Open.
	if err := waitFor(60*time.Second, "vc-controller-manager to open queue default", func() (bool, string) {
		if !kwok.Running() {
			return false, "kwok exited: " + kwok.Tail(10)
		}
		if !ctl.Running() {
			return false, "vc-controller-manager exited: " + ctl.Tail(10)
		}
		if !kcm.Running() {
			return false, "kube-controller-manager exited: " + kcm.Tail(10)
		}
		var q Queue
		if err := r.Get("/apis/scheduling.volcano.sh/v1beta1/queues/default", &q); err != nil {
			return false, err.Error()
		}
		return q.Status.State == "Open", "state " + q.Status.State
	}); err != nil {
		return err
	}
	return nil
}

// applyRBAC: deploy/rbac.yaml's ClusterRole for Caldera, bound to the token user
// caldera-scheduler, so the suite also proves the shipped role is enough for this path.
func (r *Rig) applyRBAC() error {
	data, err := os.ReadFile(filepath.Join(r.B.Source, "deploy", "rbac.yaml"))
	if err != nil {
		return err
	}
	for _, doc := range splitYAML(string(data)) {
		kind := yamlField(doc, "kind")
		var p string
		switch kind {
		case "ClusterRole":
			p = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
		case "ClusterRoleBinding":
			p = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"
		default:
			continue // the Namespace and ServiceAccount of an in-cluster install
		}
		if err := r.CreateYAML(p, doc); err != nil {
			return fmt.Errorf("deploy/rbac.yaml: %v", err)
		}
	}
	return r.Create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": "caldera-scheduler-e2e-user"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "caldera-scheduler"},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "caldera-scheduler"}},
	})
}

// Scheduler starts the scheduler under test: "caldera" (caldera run --backend kubernetes,
// as the caldera-scheduler user) or "volcano" (vc-scheduler, as admin), both with the
// same Volcano config and a 1 s period.
func (r *Rig) StartScheduler(which string) (*Proc, error) {
	common := []string{"--scheduler-conf=" + r.B.SchedConf, "--schedule-period=1s",
		"--leader-elect=false",
		fmt.Sprintf("--listen-address=127.0.0.1:%d", freePort()),
		fmt.Sprintf("--healthz-address=127.0.0.1:%d", freePort())}
	switch which {
	case "caldera":
		v := os.Getenv("CALDERA_E2E_V") // more of Caldera's log when debugging
		if v == "" {
			v = "2"
		}
		args := append([]string{"-v", v, "run", "--backend", "kubernetes",
			"--kubeconfig", r.Kubeconfig("caldera", "caldera-token")}, common...)
		return r.start("caldera", r.B.Caldera, args...)
	case "volcano":
		args := append([]string{"--kubeconfig", r.Kubeconfig("vc-scheduler", r.token),
			"--logtostderr", "-v", "3"}, common...)
		return r.start("vc-scheduler", r.B.VcScheduler, args...)
	}
	return nil, fmt.Errorf("unknown scheduler %q", which)
}

// Procs: the rig's processes (the scheduler too, once started), in start order.
func (r *Rig) Procs() []*Proc { return r.procs }

// Down stops every process, newest first.
func (r *Rig) Down() {
	for i := len(r.procs) - 1; i >= 0; i-- {
		r.procs[i].Stop()
	}
	r.procs = nil
}

// Kubeconfig writes DIR/name.kubeconfig for a bearer token.
func (r *Rig) Kubeconfig(name, token string) string {
	ca, _ := os.ReadFile(r.cert("ca.crt"))
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: %s
  user:
    token: %s
contexts:
- name: e2e
  context:
    cluster: e2e
    user: %s
current-context: e2e
`, r.URL(), base64.StdEncoding.EncodeToString(ca), name, token, name)
	p := r.path(name + ".kubeconfig")
	os.WriteFile(p, []byte(text), 0600)
	return p
}

// ---- REST --------------------------------------------------------------------------------

func (r *Rig) Do(method, path string, body any, ctype string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		var b []byte
		switch v := body.(type) {
		case []byte:
			b = v
		case string:
			b = []byte(v)
		default:
			b, _ = json.Marshal(v)
		}
		rd = bytes.NewReader(b)
		if ctype == "" {
			ctype = "application/json"
		}
	}
	req, err := http.NewRequest(method, r.URL()+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set("Accept", "application/json")
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// Create posts obj (JSON) and fails unless created (201/200) or already there (409).
func (r *Rig) Create(path string, obj any) error {
	return r.create(path, obj, "")
}

// CreateYAML posts one YAML document: the API server reads YAML itself.
func (r *Rig) CreateYAML(path, doc string) error {
	return r.create(path, doc, "application/yaml")
}

func (r *Rig) create(path string, obj any, ctype string) error {
	code, out, err := r.Do("POST", path, obj, ctype)
	if err != nil {
		return fmt.Errorf("POST %s: %v", path, err)
	}
	if code != 201 && code != 200 && code != 409 {
		return fmt.Errorf("POST %s: HTTP %d: %s", path, code, strings.TrimSpace(string(out)))
	}
	return nil
}

func (r *Rig) Get(path string, out any) error {
	code, body, err := r.Do("GET", path, nil, "")
	if err != nil {
		return fmt.Errorf("GET %s: %v", path, err)
	}
	if code != 200 {
		return fmt.Errorf("GET %s: HTTP %d: %s", path, code, strings.TrimSpace(string(body)))
	}
	return json.Unmarshal(body, out)
}

// Delete removes an object at once (grace period 0); a missing object is fine.
func (r *Rig) Delete(path string) error {
	code, out, err := r.Do("DELETE", path, map[string]any{"gracePeriodSeconds": 0}, "")
	if err != nil {
		return fmt.Errorf("DELETE %s: %v", path, err)
	}
	if code != 200 && code != 202 && code != 404 {
		return fmt.Errorf("DELETE %s: HTTP %d: %s", path, code, strings.TrimSpace(string(out)))
	}
	return nil
}

// ApplyYAMLFile posts every document of a YAML file to path; returns their names.
func (r *Rig) ApplyYAMLFile(file, path string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, doc := range splitYAML(string(data)) {
		if err := r.CreateYAML(path, doc); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		var meta struct {
			Metadata struct{ Name string }
		}
		// The name, read back through the API server's own YAML decoder would need a
		// round trip; "metadata:\n  name: X" is how every CRD file here writes it.
		if n := yamlMetadataName(doc); n != "" {
			names = append(names, n)
		} else if json.Unmarshal([]byte(doc), &meta) == nil && meta.Metadata.Name != "" {
			names = append(names, meta.Metadata.Name)
		} else {
			return nil, fmt.Errorf("%s: a document without metadata.name", file)
		}
	}
	return names, nil
}

func splitYAML(s string) []string {
	var docs []string
	for _, d := range strings.Split("\n"+s, "\n---") {
		body := false
		for _, l := range strings.Split(d, "\n") {
			t := strings.TrimSpace(l)
			if t != "" && !strings.HasPrefix(t, "#") {
				body = true
				break
			}
		}
		if body {
			docs = append(docs, strings.TrimPrefix(d, "\n"))
		}
	}
	return docs
}

// yamlField: the value of a top-level scalar key ("kind: X").
func yamlField(doc, key string) string {
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, key+":") {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(l, key+":")), `"'`)
		}
	}
	return ""
}

// yamlMetadataName: "name:" indented under the top-level "metadata:".
func yamlMetadataName(doc string) string {
	in := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "metadata:") {
			in = true
			continue
		}
		if in && l != "" && l[0] != ' ' {
			in = false
		}
		if in && strings.HasPrefix(strings.TrimSpace(l), "name:") && strings.HasPrefix(l, "  name:") {
			return strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "name:")), `"'`)
		}
	}
	return ""
}

// ---- objects -----------------------------------------------------------------------------

func queueObj(name string, weight int) map[string]any {
	return map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"weight": weight, "reclaimable": true},
	}
}

type Queue struct {
	Status struct {
		State string `json:"state"`
	} `json:"status"`
}

// nodeObj: a KWOK node with its capacity; no conditions (KWOK's node-initialize stage
// makes it Ready, keeping the capacity given here).
func nodeObj(name, cpu, mem string) map[string]any {
	res := map[string]any{"cpu": cpu, "memory": mem, "pods": "110"}
	return map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name,
			"labels":      map[string]any{"type": "kwok", "kubernetes.io/hostname": name},
			"annotations": map[string]any{"kwok.x-k8s.io/node": "fake"}},
		"spec":   map[string]any{"taints": []any{}},
		"status": map[string]any{"capacity": res, "allocatable": res},
	}
}

// AddNodes creates the nodes and waits until KWOK has made each Ready.
func (r *Rig) AddNodes(cpu, mem string, names ...string) error {
	return r.AddNodesWith(cpu, mem, nil, nil, names...)
}

// AddNodesWith: AddNodes with more labels and taints.
func (r *Rig) AddNodesWith(cpu, mem string, labels map[string]any, taints []any, names ...string) error {
	for _, n := range names {
		obj := nodeObj(n, cpu, mem)
		for k, v := range labels {
			obj["metadata"].(map[string]any)["labels"].(map[string]any)[k] = v
		}
		if taints != nil {
			obj["spec"] = map[string]any{"taints": taints}
		}
		if err := r.Create("/api/v1/nodes", obj); err != nil {
			return err
		}
	}
	for _, n := range names {
		if err := waitFor(30*time.Second, "node "+n+" Ready (KWOK)", func() (bool, string) {
			var node struct {
				Status struct {
					Conditions  []struct{ Type, Status string }
					Allocatable map[string]string
				}
			}
			if err := r.Get("/api/v1/nodes/"+n, &node); err != nil {
				return false, err.Error()
			}
			for _, c := range node.Status.Conditions {
				if c.Type == "Ready" && c.Status == "True" {
					if node.Status.Allocatable["cpu"] != cpu {
						return false, fmt.Sprintf("Ready but allocatable cpu %q, not %q", node.Status.Allocatable["cpu"], cpu)
					}
					return true, ""
				}
			}
			return false, fmt.Sprintf("conditions %v", node.Status.Conditions)
		}); err != nil {
			return err
		}
	}
	return nil
}

func (r *Rig) Namespace(ns string) error {
	return r.Create("/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns}})
}

// ---- helpers -----------------------------------------------------------------------------

// waitFor polls f every 100 ms until it holds or d has passed (waitForEvery in fleet.go
// takes the interval).
func waitFor(d time.Duration, what string, f func() (bool, string)) error {
	return waitForEvery(100*time.Millisecond, d, what, f)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Cleanup removes what a test made, so the next test sees only its own nodes: the owners
// first (Volcano Jobs, Deployments, ReplicaSets, so that no controller makes their pods
// again), then the pods and PodGroups themselves (not left to the garbage collector, so
// that the next test does not start while they go), then the nodes.
func (r *Rig) Cleanup(ns string, nodes ...string) {
	list := func(path string) []string {
		var l struct {
			Items []struct{ Metadata struct{ Name string } }
		}
		if r.Get(path, &l) != nil {
			return nil
		}
		var out []string
		for _, it := range l.Items {
			out = append(out, it.Metadata.Name)
		}
		return out
	}
	for _, kind := range []string{"/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs",
		"/apis/apps/v1/namespaces/%s/deployments", "/apis/apps/v1/namespaces/%s/replicasets",
		"/api/v1/namespaces/%s/pods",
		"/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups"} {
		base := fmt.Sprintf(kind, ns)
		for _, n := range list(base) {
			r.Delete(base + "/" + n)
		}
	}
	waitFor(20*time.Second, "the pods of "+ns+" gone", func() (bool, string) {
		left := list("/api/v1/namespaces/" + ns + "/pods")
		return len(left) == 0, strings.Join(left, " ")
	})
	for _, n := range nodes {
		r.Delete("/api/v1/nodes/" + n)
	}
}
