// The test environment: etcd and kube-apiserver processes on loopback, a small REST client
// (bearer token + CA, no client-go: the API is plain JSON over HTTPS), Caldera processes,
// and a stand-in for the kubelet (no kubelets run here: bound pods are marked Running by
// the driver, and pods being deleted are finished off).
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"
)

type Env struct {
	Work         string // scratch folder: certs, data, logs
	EtcdBin      string
	APIBin       string
	CalderaBin   string
	Source       string // the repository (deploy/, tests/)
	Config       string // caldera config for the tests
	FaultPlugins string // the faulty test plugins' build folder (-fault-plugins)

	etcd     *exec.Cmd
	etcdPort int
	apis     [2]*exec.Cmd
	apiPorts [2]int
	base     int // which API server the driver talks to
	client   *http.Client
	token    string
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (e *Env) path(name string) string { return filepath.Join(e.Work, name) }

func (e *Env) URL(i int) string { return fmt.Sprintf("https://127.0.0.1:%d", e.apiPorts[i]) }

func (e *Env) Setup() error {
	ca, err := os.ReadFile(e.path("ca.crt"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	e.client = &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 128},
	}
	e.token = "admin-token"
	e.etcdPort = freePort()
	e.apiPorts = [2]int{freePort(), freePort()}
	if err := e.StartEtcd(); err != nil {
		return err
	}
	if err := e.StartAPIServer(0); err != nil {
		return err
	}
	return nil
}

func (e *Env) StartEtcd() error {
	peer := freePort()
	log, _ := os.Create(e.path("etcd.log"))
	e.etcd = exec.Command(e.EtcdBin,
		"--name", "e1", "--data-dir", e.path("etcd-data"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", e.etcdPort),
		"--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", e.etcdPort),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-cluster", fmt.Sprintf("e1=http://127.0.0.1:%d", peer),
		"--quota-backend-bytes", "8589934592")
	e.etcd.Stdout, e.etcd.Stderr = log, log
	e.etcd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := e.etcd.Start(); err != nil {
		return fmt.Errorf("etcd: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/health", e.etcdPort))
		if err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("etcd did not become healthy (see %s)", e.path("etcd.log"))
}

func (e *Env) StartAPIServer(i int) error {
	log, _ := os.OpenFile(e.path(fmt.Sprintf("apiserver-%d.log", i)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0644)
	cmd := exec.Command(e.APIBin,
		"--etcd-servers", fmt.Sprintf("http://127.0.0.1:%d", e.etcdPort),
		"--bind-address", "127.0.0.1",
		"--advertise-address", "127.0.0.1",
		"--secure-port", fmt.Sprint(e.apiPorts[i]),
		"--tls-cert-file", e.path("serving.crt"),
		"--tls-private-key-file", e.path("serving.key"),
		"--client-ca-file", e.path("ca.crt"),
		"--token-auth-file", e.path("tokens.csv"),
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", e.path("sa.pub"),
		"--service-account-signing-key-file", e.path("sa.key"),
		"--service-cluster-ip-range", "10.96.0.0/16",
		// No controllers run here: no ServiceAccount controller to create "default" accounts,
		// no node lifecycle controller to lift the not-ready taint that TaintNodesByCondition
		// puts on every new node (the test's nodes are Ready from the start).
		"--disable-admission-plugins", "ServiceAccount,TaintNodesByCondition",
		"--cert-dir", e.path(fmt.Sprintf("apiserver-%d-certs", i)),
		"--max-requests-inflight", "1600",
		"--max-mutating-requests-inflight", "800",
		"--profiling=false",
		"--v", "1")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("kube-apiserver: %v", err)
	}
	e.apis[i] = cmd
	go cmd.Wait()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		code, _, err := e.doOn(i, "GET", "/readyz", nil, "")
		if err == nil && code == 200 {
			return nil
		}
		time.Sleep(300 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver %d did not become ready (see %s)", i, e.path(fmt.Sprintf("apiserver-%d.log", i)))
}

// KillAPIServer stops API server i at once (SIGKILL: connections drop mid-request).
func (e *Env) KillAPIServer(i int) {
	if e.apis[i] != nil && e.apis[i].Process != nil {
		e.apis[i].Process.Kill()
		time.Sleep(300 * time.Millisecond)
		e.apis[i] = nil
	}
}

func (e *Env) Teardown() {
	for i := range e.apis {
		e.KillAPIServer(i)
	}
	if e.etcd != nil && e.etcd.Process != nil {
		e.etcd.Process.Kill()
		e.etcd.Wait()
	}
}

// ---- REST ------------------------------------------------------------------------------

func (e *Env) doOn(i int, method, path string, body any, ctype string) (int, []byte, error) {
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
	req, err := http.NewRequest(method, e.URL(i)+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Accept", "application/json")
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

func (e *Env) Do(method, path string, body any, ctype string) (int, []byte, error) {
	return e.doOn(e.base, method, path, body, ctype)
}

// Create posts obj and fails unless it was created (201) or already there (409).
func (e *Env) Create(path string, obj any) error {
	code, out, err := e.Do("POST", path, obj, "")
	if err != nil {
		return fmt.Errorf("POST %s: %v", path, err)
	}
	if code != 201 && code != 200 && code != 409 {
		return fmt.Errorf("POST %s: HTTP %d: %s", path, code, strings.TrimSpace(string(out)))
	}
	return nil
}

func (e *Env) Get(path string, out any) error {
	code, body, err := e.Do("GET", path, nil, "")
	if err != nil {
		return fmt.Errorf("GET %s: %v", path, err)
	}
	if code != 200 {
		return fmt.Errorf("GET %s: HTTP %d: %s", path, code, strings.TrimSpace(string(body)))
	}
	return json.Unmarshal(body, out)
}

// Delete removes an object at once (grace period 0); a missing object is fine.
func (e *Env) Delete(path string) error {
	code, out, err := e.Do("DELETE", path, map[string]any{"gracePeriodSeconds": 0}, "")
	if err != nil {
		return fmt.Errorf("DELETE %s: %v", path, err)
	}
	if code != 200 && code != 202 && code != 404 {
		return fmt.Errorf("DELETE %s: HTTP %d: %s", path, code, strings.TrimSpace(string(out)))
	}
	return nil
}

func (e *Env) Patch(path string, patch any) error {
	code, out, err := e.Do("PATCH", path, patch, "application/merge-patch+json")
	if err != nil {
		return fmt.Errorf("PATCH %s: %v", path, err)
	}
	if code != 200 {
		return fmt.Errorf("PATCH %s: HTTP %d: %s", path, code, strings.TrimSpace(string(out)))
	}
	return nil
}

// ApplyYAML creates every object of a multi-document YAML file.
func (e *Env) ApplyYAML(file string, skipKinds ...string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	paths := map[string]string{
		"CustomResourceDefinition": "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		"ClusterRole":              "/apis/rbac.authorization.k8s.io/v1/clusterroles",
		"ClusterRoleBinding":       "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
		"Namespace":                "/api/v1/namespaces",
		"Queue":                    "/apis/scheduling.volcano.sh/v1beta1/queues",
		"PriorityClass":            "/apis/scheduling.k8s.io/v1/priorityclasses",
	}
	nsPaths := map[string]string{
		"ServiceAccount": "/api/v1/namespaces/%s/serviceaccounts",
		"ConfigMap":      "/api/v1/namespaces/%s/configmaps",
		"Deployment":     "/apis/apps/v1/namespaces/%s/deployments",
		"Role":           "/apis/rbac.authorization.k8s.io/v1/namespaces/%s/roles",
		"RoleBinding":    "/apis/rbac.authorization.k8s.io/v1/namespaces/%s/rolebindings",
	}
	for _, doc := range strings.Split(string(data), "\n---") {
		if strings.TrimSpace(strings.Trim(doc, "-\n")) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		var obj struct {
			Kind     string
			Metadata struct{ Namespace string }
		}
		if err := json.Unmarshal(js, &obj); err != nil || obj.Kind == "" {
			continue
		}
		skip := false
		for _, k := range skipKinds {
			skip = skip || k == obj.Kind
		}
		if skip {
			continue
		}
		p, ok := paths[obj.Kind]
		if !ok {
			f, ok := nsPaths[obj.Kind]
			if !ok {
				return fmt.Errorf("%s: kind %s not known to the driver", file, obj.Kind)
			}
			p = fmt.Sprintf(f, obj.Metadata.Namespace)
		}
		if err := e.Create(p, json.RawMessage(js)); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
	}
	return nil
}

// ---- objects ---------------------------------------------------------------------------

type Pod struct {
	Metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		Labels            map[string]string `json:"labels"`
		DeletionTimestamp *string           `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName   string `json:"nodeName"`
		Containers []struct {
			Resources struct {
				Requests map[string]string `json:"requests"`
			} `json:"resources"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase"`
		Conditions []struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"conditions"`
	} `json:"status"`
}

func (e *Env) Pods(ns string) ([]Pod, error) {
	var l struct{ Items []Pod }
	err := e.Get(fmt.Sprintf("/api/v1/namespaces/%s/pods", ns), &l)
	return l.Items, err
}

func Node(name string, cpu, mem string, labels map[string]string) map[string]any {
	res := map[string]any{"cpu": cpu, "memory": mem, "pods": "110"}
	return map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name, "labels": labels},
		"status": map[string]any{
			"capacity": res, "allocatable": res,
			"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "KubeletReady"}},
		},
	}
}

type PodOpts struct {
	PodGroup      string
	CPU           string
	PriorityClass string
	Labels        map[string]string
	NodeSelector  map[string]string
	NodeName      string
	Scheduler     string
	Spec          map[string]any // more PodSpec fields (affinity, topologySpreadConstraints, volumes)
}

func PodObj(ns, name string, o PodOpts) map[string]any {
	ann := map[string]any{}
	if o.PodGroup != "" {
		ann["scheduling.k8s.io/group-name"] = o.PodGroup
	}
	sched := o.Scheduler
	if sched == "" {
		sched = "volcano"
	}
	spec := map[string]any{
		"schedulerName": sched,
		"containers": []any{map[string]any{
			"name": "main", "image": "registry.invalid/sleep",
			"resources": map[string]any{"requests": map[string]any{"cpu": o.CPU, "memory": "100Mi"}},
		}},
		"terminationGracePeriodSeconds": 30,
	}
	if o.PriorityClass != "" {
		spec["priorityClassName"] = o.PriorityClass
	}
	if o.NodeSelector != nil {
		spec["nodeSelector"] = o.NodeSelector
	}
	if o.NodeName != "" {
		spec["nodeName"] = o.NodeName
	}
	for k, v := range o.Spec {
		spec[k] = v
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": o.Labels, "annotations": ann},
		"spec":     spec,
	}
}

func PodGroupObj(ns, name, queue string, minMember int, pc string) map[string]any {
	spec := map[string]any{"minMember": minMember, "queue": queue}
	if pc != "" {
		spec["priorityClassName"] = pc
	}
	return map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}
}

func QueueObj(name string, weight int) map[string]any {
	return map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"weight": weight, "reclaimable": true},
	}
}

func (e *Env) Namespace(ns string) error {
	return e.Create("/api/v1/namespaces", map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns}})
}

func (e *Env) CreatePod(ns, name string, o PodOpts) error {
	return e.Create(fmt.Sprintf("/api/v1/namespaces/%s/pods", ns), PodObj(ns, name, o))
}

func (e *Env) CreatePodGroup(ns, name, queue string, minMember int, pc string) error {
	return e.Create(fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups", ns),
		PodGroupObj(ns, name, queue, minMember, pc))
}

type PodGroup struct {
	Status struct {
		Phase      string `json:"phase"`
		Running    int    `json:"running"`
		Conditions []struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"conditions"`
	} `json:"status"`
}

func (e *Env) PodGroup(ns, name string) (PodGroup, error) {
	var pg PodGroup
	err := e.Get(fmt.Sprintf("/apis/scheduling.volcano.sh/v1beta1/namespaces/%s/podgroups/%s", ns, name), &pg)
	return pg, err
}

type Queue struct {
	Status struct {
		State     string            `json:"state"`
		Pending   int               `json:"pending"`
		Inqueue   int               `json:"inqueue"`
		Running   int               `json:"running"`
		Completed int               `json:"completed"`
		Allocated map[string]string `json:"allocated"`
	} `json:"status"`
}

func (e *Env) Queue(name string) (Queue, error) {
	var q Queue
	err := e.Get("/apis/scheduling.volcano.sh/v1beta1/queues/"+name, &q)
	return q, err
}

type Event struct {
	Reason         string `json:"reason"`
	Message        string `json:"message"`
	Type           string `json:"type"`
	InvolvedObject struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"involvedObject"`
}

func (e *Env) Events(ns string) ([]Event, error) {
	var l struct{ Items []Event }
	err := e.Get(fmt.Sprintf("/api/v1/namespaces/%s/events", ns), &l)
	return l.Items, err
}

// ---- the kubelet's part ------------------------------------------------------------------

// Kubelet marks bound pods of `ns` Running and finishes pods that are being deleted, until
// the context ends.
func (e *Env) Kubelet(ctx context.Context, ns string) {
	go func() {
		for ctx.Err() == nil {
			pods, err := e.Pods(ns)
			if err == nil {
				for _, p := range pods {
					base := fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", ns, p.Metadata.Name)
					if p.Metadata.DeletionTimestamp != nil {
						e.Delete(base)
					} else if p.Spec.NodeName != "" && (p.Status.Phase == "Pending" || p.Status.Phase == "") {
						e.Do("PATCH", base+"/status", map[string]any{"status": map[string]any{
							"phase":      "Running",
							"conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
						}}, "application/strategic-merge-patch+json")
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}

// ---- Caldera ---------------------------------------------------------------------------

type Caldera struct {
	Name string
	Log  string
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
}

// Kubeconfig writes a kubeconfig for Caldera: the CA as data, and either the bearer token
// or the client certificate (files, relative to the kubeconfig).
func (e *Env) Kubeconfig(name string, clientCert bool, apiserver int) string {
	ca, _ := os.ReadFile(e.path("ca.crt"))
	user := "    token: caldera-token\n"
	if clientCert {
		user = "    client-certificate: caldera-client.crt\n    client-key: caldera-client.key\n"
	}
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: caldera
  user:
%scontexts:
- name: test
  context:
    cluster: test
    user: caldera
current-context: test
`, e.URL(apiserver), b64(ca), user)
	p := e.path(name + ".kubeconfig")
	os.WriteFile(p, []byte(text), 0600)
	return p
}

func (e *Env) StartCaldera(name, kubeconfig string, extra ...string) (*Caldera, error) {
	verbosity := os.Getenv("CALDERA_K8S_V") // more Caldera logging when debugging a test
	if verbosity == "" {
		verbosity = "1"
	}
	args := append([]string{"-v", verbosity, "run", "--backend", "kubernetes", "--kubeconfig", kubeconfig,
		"--config", e.Config}, extra...)
	return e.start(name, e.CalderaBin, args)
}

// StartVcScheduler runs Caldera as volcano-scheduler's image would: through a link named
// vc-scheduler, with `args` as volcano-scheduler's Deployment writes them (and no "run"),
// and, where this process may make a mount namespace (root), with every mount read-only
// as in a pod with readOnlyRootFilesystem and no volume to write to. readOnly says which.
func (e *Env) StartVcScheduler(name, kubeconfig string, args ...string) (c *Caldera, readOnly bool, err error) {
	link := e.path("vc-scheduler")
	if _, err := os.Lstat(link); err != nil {
		if err := os.Symlink(e.CalderaBin, link); err != nil {
			return nil, false, err
		}
	}
	args = append([]string{"--kubeconfig", kubeconfig}, args...)
	if exec.Command("unshare", "-m", "true").Run() != nil {
		c, err = e.start(name, link, args)
		return c, false, err
	}
	// Every mount read-only in a namespace of its own; the probe proves nothing is left
	// writable where a program would write (the root, /tmp, /var/tmp, /dev/shm).
	script := `for m in $(awk '{print $2}' /proc/self/mounts | sort -u); do
  case "$m" in /proc|/proc/*|/sys|/sys/*) continue ;; esac
  mount -o remount,bind,ro "$m" 2>/dev/null || true
done
for d in / /tmp /var/tmp /dev/shm "$HOME"; do
  [ -d "$d" ] || continue
  if touch "$d/.caldera-rw-probe" 2>/dev/null; then echo "still writable: $d" >&2; exit 97; fi
done
exec "$@"`
	c, err = e.start(name, "unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh", link}, args...))
	return c, true, err
}

// start runs bin with args, its output in NAME.log; killed if the driver dies.
func (e *Env) start(name, bin string, args []string) (*Caldera, error) {
	logPath := e.path(name + ".log")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &Caldera{Name: name, Log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); log.Close(); close(c.done) }()
	return c, nil
}

func (c *Caldera) Running() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// Stop sends SIGTERM and waits (SIGKILL after 15 s).
func (c *Caldera) Stop() {
	if !c.Running() {
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
}

func (c *Caldera) Kill() {
	if c.Running() {
		c.cmd.Process.Kill()
		<-c.done
	}
}

func (c *Caldera) Output() string {
	b, _ := os.ReadFile(c.Log)
	return string(b)
}

func (c *Caldera) Contains(s string) bool { return strings.Contains(c.Output(), s) }

// WaitLog waits until the log holds s.
func (c *Caldera) WaitLog(s string, d time.Duration) error {
	return WaitFor(d, "log of "+c.Name+" to contain "+fmt.Sprintf("%q", s), func() (bool, string) {
		if !c.Running() {
			return false, "caldera exited:\n" + tail(c.Output(), 20)
		}
		return c.Contains(s), tail(c.Output(), 5)
	})
}

// ---- helpers ---------------------------------------------------------------------------

func WaitFor(d time.Duration, what string, f func() (bool, string)) error {
	deadline := time.Now().Add(d)
	state := ""
	for {
		ok, s := f()
		state = s
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s; last state: %s", d, what, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// LeaseHolder is the holderIdentity of Lease ns/name; "" when unheld or unreadable.
func (e *Env) LeaseHolder(ns, name string) string {
	var l struct {
		Spec struct {
			HolderIdentity *string `json:"holderIdentity"`
		} `json:"spec"`
	}
	if e.Get(fmt.Sprintf("/apis/coordination.k8s.io/v1/namespaces/%s/leases/%s", ns, name), &l) != nil ||
		l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// httpGet: the status and body of a plain HTTP GET (Caldera's /metrics and /healthz).
func httpGet(url string) (int, string, error) {
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}
