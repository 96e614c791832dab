package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness-agent/harness/internal/jaegertest"
)

// The quickstart exports its trace to a real Jaeger over each OTLP
// protocol, and the trace read back through Jaeger's query API has the
// session, turn, model-request and tool-call spans with their attributes.
func TestRunExportsItsTraceToJaeger(t *testing.T) {
	j := jaegertest.Start(t)
	for _, tc := range []struct {
		name, protocol, endpoint string
		block                    string // a telemetry block added to the configuration
		content                  bool
	}{
		{name: "grpc-env", protocol: "grpc", endpoint: "http://" + j.OTLPGRPC},
		{name: "http-env", protocol: "http/protobuf", endpoint: "http://" + j.OTLPHTTP},
		{name: "http-block", block: fmt.Sprintf("telemetry {\n  endpoint     = %q\n  service_name = \"harness-test-http-block\"\n  content      = true\n}\n", "http://"+j.OTLPHTTP), content: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			service := "harness-test-" + tc.name
			dir := quickstart(t)
			env := []string{"OTEL_EXPORTER_OTLP_HEADERS=x-harness-test=1"}
			if tc.block != "" {
				appendFile(t, filepath.Join(dir, "agent.hcl"), "\n"+tc.block)
			} else {
				env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+tc.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL="+tc.protocol, "OTEL_SERVICE_NAME="+service)
			}
			r := harness(t, dir, env, "run", "--json", "--no-input", "agent.hcl", "Summarize the open TODOs")
			if r.code != 0 || strings.Contains(r.stderr, "telemetry") {
				t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
			}
			evs := parseEvents(t, r.stdout)
			counts := types(evs)
			spans := counts["session.started"] + 2*counts["llm.request"] + counts["tool.call"] // turns = requests here
			traces := j.Traces(t, service, func(ts []jaegertest.Trace) bool { return len(ts) == 1 && len(ts[0].Spans) == spans })
			checkTrace(t, traces[0].Spans, evs, tc.content)
		})
	}
	// Metrics went through the same pipeline: Jaeger's debug exporter prints them.
	for _, name := range []string{"gen_ai.client.token.usage", "harness.tokens", "harness.cost", "harness.tool.calls", "harness.approvals"} {
		if !strings.Contains(j.Log(), "Name: "+name) {
			t.Errorf("metric %s did not reach the collector", name)
		}
	}
}

func checkTrace(t *testing.T, spans []jaegertest.Span, evs []event, content bool) {
	t.Helper()
	byID := map[string]jaegertest.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	parentOf := func(s jaegertest.Span) string { return byID[s.Parent()].OperationName }
	usage := map[string]map[string]any{} // by turn: the quickstart makes one request a turn
	for _, ev := range evs {
		if ev.Type == "llm.usage" {
			var d map[string]any
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			usage[fmt.Sprint(d["turn"])] = d
		}
	}
	var chats, tools int
	for _, s := range spans {
		switch op := s.OperationName; {
		case op == "invoke_agent quickstart":
			if s.Parent() != "" || s.Tag("gen_ai.conversation.id") != evs[0].Session || s.Tag("harness.session.status") != "completed" {
				t.Errorf("session span: parent %q, tags %v", s.Parent(), s.Tags)
			}
		case strings.HasPrefix(op, "turn "):
			if parentOf(s) != "invoke_agent quickstart" {
				t.Errorf("%s is a child of %q", op, parentOf(s))
			}
		case op == "chat script":
			turn := s.Tag("harness.turn")
			if parentOf(s) != "turn "+turn {
				t.Errorf("request of turn %s is a child of %q", turn, parentOf(s))
			}
			u := usage[turn]
			for tag, want := range map[string]string{
				"gen_ai.system": "script", "gen_ai.request.model": "script", "gen_ai.operation.name": "chat",
				"gen_ai.usage.input_tokens":            fmt.Sprint(u["prompt_tokens"]),
				"gen_ai.usage.output_tokens":           fmt.Sprint(u["completion_tokens"]),
				"gen_ai.usage.cache_read.input_tokens": fmt.Sprint(u["cache_hit_tokens"]),
			} {
				if got := s.Tag(tag); got != want {
					t.Errorf("request of turn %s: %s = %q, want %q", turn, tag, got, want)
				}
			}
			chats++
		case strings.HasPrefix(op, "execute_tool "):
			tools++
			if !strings.HasPrefix(parentOf(s), "turn ") {
				t.Errorf("%s is a child of %q", op, parentOf(s))
			}
			if s.Tag("gen_ai.tool.name") != strings.TrimPrefix(op, "execute_tool ") {
				t.Errorf("%s: gen_ai.tool.name %q", op, s.Tag("gen_ai.tool.name"))
			}
			if s.Tag("harness.approval.decision") == "denied" &&
				(s.Tag("error.type") != "denied" || s.Tag("harness.approval.by") != "policy" || s.Tag("harness.approval.rule") != `deny_commands "rm *"`) {
				t.Errorf("the denied call: %v", s.Tags)
			}
		default:
			t.Errorf("unexpected span %q", op)
		}
	}
	if chats != len(usage) || tools != types(evs)["tool.call"] {
		t.Errorf("%d request spans for %d usage events, %d tool spans for %d calls", chats, len(usage), tools, types(evs)["tool.call"])
	}
	all, _ := json.Marshal(spans)
	if got := strings.Contains(string(all), "Summarize the open TODOs"); got != content {
		t.Errorf("the task is in the trace: %v, want %v (content export %v)", got, content, content)
	}
}

// A collector that is not there costs a note at the end, never the run.
func TestRunWithAnUnreachableCollectorStillSucceeds(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	r := harness(t, dir, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
		"run", "--no-input", "agent.hcl", "Summarize the open TODOs")
	if r.code != 0 || !strings.Contains(r.stderr, "harness: telemetry: export to http://127.0.0.1:1 (grpc, OTEL_EXPORTER_OTLP_ENDPOINT): ") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

func TestRunRefusesAnUnknownOTLPProtocol(t *testing.T) {
	t.Parallel()
	dir := quickstart(t)
	r := harness(t, dir, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"},
		"run", "--no-input", "agent.hcl", "Summarize the open TODOs")
	if r.code != 2 || !strings.Contains(r.stderr, `OTEL_EXPORTER_OTLP_PROTOCOL="http/json" is not a protocol harness exports with`) {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
