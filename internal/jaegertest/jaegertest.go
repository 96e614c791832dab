// Package jaegertest runs a real Jaeger v2 (all-in-one, in-memory storage)
// on free local ports for tests that export OpenTelemetry data, and reads
// traces back through its query API.
//
// The binary is $HARNESS_JAEGER, else jaeger on PATH; scripts/test.sh
// builds github.com/jaegertracing/jaeger/cmd/jaeger once into a cache
// folder and sets HARNESS_JAEGER (and HARNESS_TEST_JAEGER=required, which
// turns a missing binary from a skip into a failure).
package jaegertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Jaeger is a running Jaeger.
type Jaeger struct {
	OTLPGRPC string // host:port of the OTLP/gRPC receiver
	OTLPHTTP string // host:port of the OTLP/HTTP receiver
	Query    string // base URL of the query API and UI

	mu  sync.Mutex
	log bytes.Buffer // what Jaeger printed (the metrics pipeline's debug exporter among it)
}

// Find returns the jaeger binary, or why there is none.
func Find() (path, reason string) {
	if p := os.Getenv("HARNESS_JAEGER"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", "HARNESS_JAEGER=" + p + ": " + err.Error()
		}
		return p, ""
	}
	if p, err := exec.LookPath("jaeger"); err == nil {
		return p, ""
	}
	return "", "no jaeger binary (set HARNESS_JAEGER; scripts/test.sh builds github.com/jaegertracing/jaeger/cmd/jaeger@v1.76.0 and sets it)"
}

// config is a Jaeger v2 configuration: traces to in-memory storage, metrics
// to the debug exporter (printed, so a test can see they arrived), every
// listener on a port of its own.
const config = `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
    metrics:
      receivers: [otlp]
      exporters: [debug]
  telemetry:
    metrics:
      level: none
    logs:
      level: info
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: %[1]s
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: %[2]s
    grpc:
      endpoint: %[3]s
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %[4]s
      http:
        endpoint: %[5]s
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
  debug:
    verbosity: detailed
`

// Start runs Jaeger for t and returns once it accepts data. It is stopped
// when t ends.
func Start(t testing.TB) *Jaeger {
	t.Helper()
	bin, reason := Find()
	if bin == "" && os.Getenv("HARNESS_TEST_JAEGER") == "required" {
		t.Fatal("HARNESS_TEST_JAEGER=required: " + reason)
	}
	if bin == "" {
		t.Skip("Jaeger test skipped: " + reason)
	}
	ports := freePorts(t, 5)
	j := &Jaeger{OTLPGRPC: ports[3], OTLPHTTP: ports[4], Query: "http://" + ports[1]}
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, ports[0], ports[1], ports[2], ports[3], ports[4]), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config", cfg)
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", bin, err)
	}
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		signaled := false
		for sc.Scan() {
			j.mu.Lock()
			j.log.Write(sc.Bytes())
			j.log.WriteByte('\n')
			j.mu.Unlock()
			if !signaled && strings.Contains(sc.Text(), "Everything is ready") {
				signaled = true
				close(ready)
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("jaeger output:\n%s", j.Log())
		}
	})
	select {
	case <-ready:
	case <-done:
		t.Fatalf("jaeger exited before it was ready:\n%s", j.Log())
	case <-time.After(time.Minute):
		t.Fatalf("jaeger not ready within a minute:\n%s", j.Log())
	}
	return j
}

// Log is what Jaeger printed so far.
func (j *Jaeger) Log() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.log.String()
}

func freePorts(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// Span is a span as the query API returns it.
type Span struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Type  string `json:"type"`
		Value any    `json:"value"`
	} `json:"tags"`
}

// Parent is the id of the span's parent, "" for a root.
func (s Span) Parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// Tag is the value of a tag as text ("" when absent).
func (s Span) Tag(key string) string {
	for _, tag := range s.Tags {
		if tag.Key == key {
			return fmt.Sprint(tag.Value)
		}
	}
	return ""
}

// Trace is a trace as the query API returns it.
type Trace struct {
	TraceID string `json:"traceID"`
	Spans   []Span `json:"spans"`
}

// Traces returns the traces of service, polling until want(traces) holds
// or 30 seconds pass: Jaeger stores what it receives asynchronously.
func (j *Jaeger) Traces(t testing.TB, service string, want func([]Trace) bool) []Trace {
	t.Helper()
	u := j.Query + "/api/traces?limit=20&service=" + url.QueryEscape(service)
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		traces, err := get(u)
		if err == nil && want(traces) {
			return traces
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %v; last answer %d traces", u, err, len(traces))
		}
		<-tick.C
	}
}

func get(u string) ([]Trace, error) {
	resp, err := http.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, body)
	}
	var r struct {
		Data []Trace `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	return r.Data, nil
}
