// A fault-injecting proxy between Caldera and the real API server, for what a healthy API
// server does not do on request: answer 429 or 5xx (with or without Retry-After), 409 on a
// write, 410 Gone on a watch (as an HTTP status or, as kube-apiserver does, an ERROR event
// in a 200 stream), drop connections in the middle of a stream, send a bookmark now, or
// show Caldera an object the API server's validation would refuse. Everything else is
// forwarded to the API server unchanged, and every request is logged (method, path, query,
// status, time) so tests can assert what Caldera asked and when.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Rule answers matching requests itself instead of forwarding them, Times times.
type Rule struct {
	Method     string // "" matches any
	Path       string // the request path ends with this ("/api/v1/nodes"); "" matches any
	Contains   string // the request path contains this
	Watch      int    // 0: any request, 1: watches only, -1: everything but watches
	Query      string // the raw query contains this
	Times      int    // requests answered before the rule is spent (< 0: without end)
	Status     int    // the answer
	RetryAfter string // a Retry-After header, when not ""
	// WatchErrorCode answers a watch with 200 and one ERROR event carrying a Status of
	// this code (kube-apiserver's way of saying 410 Expired), then ends the stream.
	WatchErrorCode int
	// With neither Status nor WatchErrorCode, the request is forwarded at once and the
	// API server's answer held back this long: a write that is done but not yet answered.
	DelayAnswer time.Duration
}

// Hit is one request the proxy saw.
type Hit struct {
	At       time.Time
	Method   string
	Path     string
	Query    url.Values
	Status   int  // 0 when the connection was dropped before an answer
	Injected bool // answered by a rule, not by the API server
}

func (h Hit) Watch() bool { return h.Query.Get("watch") == "1" || h.Query.Get("watch") == "true" }

// RawLine is injected into a watch stream as it is, not as JSON.
type RawLine string

type inflight struct {
	path   string
	cancel context.CancelFunc
}

type stream struct {
	path   string
	inject chan string
	cancel context.CancelFunc
}

type Proxy struct {
	e        *Env
	upstream string
	srv      *http.Server
	ln       net.Listener
	client   *http.Client
	mu       sync.Mutex
	rules    []*Rule
	hits     []Hit
	streams  map[*stream]bool
	requests map[*inflight]bool // every request in flight
}

// StartProxy listens on loopback with the given certificate and forwards to API server 0.
func (e *Env) StartProxy(certFile, keyFile string) (*Proxy, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(e.path("ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	p := &Proxy{
		e: e, upstream: e.URL(0),
		streams:  map[*stream]bool{},
		requests: map[*inflight]bool{},
		client: &http.Client{Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool},
			MaxIdleConnsPerHost: 128,
		}},
	}
	p.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.srv = &http.Server{
		Handler:   http.HandlerFunc(p.serve),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}},
		// HTTP/1.1 only, as Caldera speaks it (an empty map turns HTTP/2 off).
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	go p.srv.ServeTLS(p.ln, "", "")
	return p, nil
}

func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

func (p *Proxy) Close() {
	p.DropAll()
	p.srv.Close()
}

// AddRule adds r after the rules already there (the first matching rule answers).
func (p *Proxy) AddRule(r Rule) *Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	rr := r
	p.rules = append(p.rules, &rr)
	return &rr
}

func (p *Proxy) RemoveRule(r *Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.rules {
		if x == r {
			p.rules = append(p.rules[:i], p.rules[i+1:]...)
			return
		}
	}
}

// Hits returns the requests seen so far for which f is true.
func (p *Proxy) Hits(f func(Hit) bool) []Hit {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Hit
	for _, h := range p.hits {
		if f(h) {
			out = append(out, h)
		}
	}
	return out
}

// Drop cuts every request in flight whose path ends with suffix ("" cuts all), as a
// failing network would: the connection closes without the rest of the answer.
func (p *Proxy) Drop(suffix string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for req := range p.requests {
		if strings.HasSuffix(req.path, suffix) {
			req.cancel()
			n++
		}
	}
	return n
}

func (p *Proxy) DropAll() int { return p.Drop("") }

// Inject writes a watch event line into every open watch of the path ending with suffix;
// it returns how many streams took it.
func (p *Proxy) Inject(suffix string, event any) int {
	b, _ := json.Marshal(event)
	if raw, ok := event.(RawLine); ok {
		b = []byte(raw)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for s := range p.streams {
		if strings.HasSuffix(s.path, suffix) {
			select {
			case s.inject <- string(b):
				n++
			default:
			}
		}
	}
	return n
}

func (p *Proxy) match(r *http.Request) *Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	watch := r.URL.Query().Get("watch") == "1" || r.URL.Query().Get("watch") == "true"
	for _, rule := range p.rules {
		if rule.Times == 0 {
			continue
		}
		if rule.Method != "" && rule.Method != r.Method {
			continue
		}
		if rule.Path != "" && !strings.HasSuffix(r.URL.Path, rule.Path) {
			continue
		}
		if rule.Contains != "" && !strings.Contains(r.URL.Path, rule.Contains) {
			continue
		}
		if (rule.Watch == 1 && !watch) || (rule.Watch == -1 && watch) {
			continue
		}
		if rule.Query != "" && !strings.Contains(r.URL.RawQuery, rule.Query) {
			continue
		}
		if rule.Times > 0 {
			rule.Times--
		}
		return rule
	}
	return nil
}

func (p *Proxy) record(h Hit) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hits = append(p.hits, h)
	return len(p.hits) - 1
}

func (p *Proxy) setStatus(i, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hits[i].Status = status
}

func statusBody(code int, reason, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code})
	return b
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	hit := Hit{At: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()}
	var delay time.Duration
	if rule := p.match(r); rule != nil && rule.Status == 0 && rule.WatchErrorCode == 0 {
		delay = rule.DelayAnswer
	} else if rule != nil {
		hit.Injected = true
		if rule.WatchErrorCode != 0 {
			hit.Status = 200
			p.record(hit)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			ev, _ := json.Marshal(map[string]any{"type": "ERROR",
				"object": json.RawMessage(statusBody(rule.WatchErrorCode, "Expired", "too old resource version (injected by the test proxy)"))})
			w.Write(append(ev, '\n'))
			return
		}
		hit.Status = rule.Status
		p.record(hit)
		if rule.RetryAfter != "" {
			w.Header().Set("Retry-After", rule.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rule.Status)
		w.Write(statusBody(rule.Status, http.StatusText(rule.Status), "injected by the test proxy"))
		return
	}
	idx := p.record(hit)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	req := &inflight{path: r.URL.Path, cancel: cancel}
	p.mu.Lock()
	p.requests[req] = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.requests, req)
		p.mu.Unlock()
	}()

	up, err := http.NewRequestWithContext(ctx, r.Method, p.upstream+r.URL.RequestURI(), strings.NewReader(string(body)))
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	for _, k := range []string{"Authorization", "Content-Type", "Accept", "User-Agent"} {
		if v := r.Header.Get(k); v != "" {
			up.Header.Set(k, v)
		}
	}
	resp, err := p.client.Do(up)
	if err != nil {
		// The API server is away or the request was dropped: the client sees the
		// connection close, not an answer.
		panic(http.ErrAbortHandler)
	}
	defer resp.Body.Close()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			panic(http.ErrAbortHandler)
		}
	}
	p.setStatus(idx, resp.StatusCode)
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	watch := hit.Watch() && resp.StatusCode == 200
	if !watch {
		if _, err := io.Copy(w, resp.Body); err != nil || ctx.Err() != nil {
			panic(http.ErrAbortHandler)
		}
		return
	}
	// A watch: forward it line by line, with injected events in between.
	s := &stream{path: r.URL.Path, inject: make(chan string, 16), cancel: cancel}
	p.mu.Lock()
	p.streams[s] = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.streams, s)
		p.mu.Unlock()
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		rd := bufio.NewReaderSize(resp.Body, 1<<20)
		for {
			l, err := rd.ReadString('\n')
			if l != "" {
				select {
				case lines <- l:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	flusher := w.(http.Flusher)
	flusher.Flush()
	for {
		select {
		case <-ctx.Done():
			panic(http.ErrAbortHandler)
		case ev := <-s.inject:
			fmt.Fprintf(w, "%s\n", ev)
			flusher.Flush()
		case l, ok := <-lines:
			if !ok {
				if ctx.Err() != nil {
					panic(http.ErrAbortHandler)
				}
				return
			}
			io.WriteString(w, l)
			flusher.Flush()
		}
	}
}

// ProxyKubeconfig writes a kubeconfig for Caldera that goes through the proxy with the
// bearer token, naming the proxy by tlsServerName (its certificate holds that name only).
func (e *Env) ProxyKubeconfig(name string, p *Proxy, tlsServerName string) string {
	ca, _ := os.ReadFile(e.path("ca.crt"))
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster:
    server: https://127.0.0.1:%d
    tls-server-name: %s
    certificate-authority-data: %s
users:
- name: caldera
  user:
    token: caldera-token
contexts:
- name: proxy
  context:
    cluster: proxy
    user: caldera
current-context: proxy
`, p.Port(), tlsServerName, b64(ca))
	path := e.path(name + ".kubeconfig")
	os.WriteFile(path, []byte(text), 0600)
	return path
}
