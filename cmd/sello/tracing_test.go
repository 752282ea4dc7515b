package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver in the test process: it
// decodes every export (protobuf, as the SDK's exporter sends it) and keeps
// its spans.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []otlpSpan
	// service is the service.name of the exports.
	service string
}

// otlpSpan is a received span, ids in hex.
type otlpSpan struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Attrs                     map[string]string
	// Links are the linked spans, as "traceID/spanID".
	Links []string
}

func mustOTLPReceiver(tb testing.TB) *otlpReceiver {
	tb.Helper()
	rc := &otlpReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = gz
		}
		b, err := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					rc.service = anyString(a.GetValue())
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, sp := range ss.GetSpans() {
					s := otlpSpan{TraceID: hex.EncodeToString(sp.GetTraceId()), SpanID: hex.EncodeToString(sp.GetSpanId()),
						ParentID: hex.EncodeToString(sp.GetParentSpanId()), Name: sp.GetName(), Attrs: map[string]string{}}
					for _, a := range sp.GetAttributes() {
						s.Attrs[a.GetKey()] = anyString(a.GetValue())
					}
					for _, l := range sp.GetLinks() {
						s.Links = append(s.Links, hex.EncodeToString(l.GetTraceId())+"/"+hex.EncodeToString(l.GetSpanId()))
					}
					rc.spans = append(rc.spans, s)
				}
			}
		}
		rc.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(out)
	}))
	tb.Cleanup(rc.Close)
	return rc
}

// anyString renders an attribute's value.
func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	}
	return v.String()
}

// received returns the spans received so far.
func (rc *otlpReceiver) received() []otlpSpan {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.spans)
}

// jsonLines decodes the buffer's JSON log lines.
func (b *syncBuffer) jsonLines(tb testing.TB) []map[string]any {
	tb.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !bytes.HasPrefix(sc.Bytes(), []byte("{")) {
			continue // a warning printed before the logger exists
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			tb.Fatalf("log line is not JSON: %v\n%s", err, sc.Text())
		}
		lines = append(lines, m)
	}
	return lines
}

// TestTraces: a server exporting to an OTLP receiver in the test process
// (--otlp-endpoint) takes a B2B invoice from the HTTP create through
// signing, DGII's reception and verdict to the delivery to its buyer (a
// tenant of the same server), with a webhook endpoint. Once the server has
// stopped (which flushes the spans), the document's spans form one trace,
// a tree rooted at the create request's span; each webhook delivery is a
// trace of its own, linked to the document's; the buyer's reception is a
// trace of its own too. Every log line of the document's trace, and every
// run of its jobs, names the create request's correlation id.
func TestTraces(t *testing.T) {
	otlp := mustOTLPReceiver(t)
	var logs syncBuffer
	// The in-process simulator's directory sends the demo buyer's
	// documents to this server's receiver.
	s := mustStartServerLogging(t, t.TempDir(), true, &logs, "--otlp-endpoint", otlp.URL, "--log-format", "json", "--log-level", "debug")
	hooks := mustHookReceiver(t)
	lines := strings.Fields(s.cli(t, "webhooks", "add", "--tenant", demoRNC, "--env", "TesteCF", "--url", hooks.URL+"/sello", "--generate-secret", "--allow-loopback"))
	secret := lines[len(lines)-1]
	key := s.Keys[sello.EnvTest]

	r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(demoBuyerRNC))})
	created := document(t, r)
	encf, docID, cid := created["encf"].(string), created["id"].(string), r.Header.Get("X-Correlation-Id")
	s.waitFor(t, key, encf, func(d map[string]any) bool {
		return d["delivery"].(map[string]any)["status"] == sello.DeliveryDelivered
	})
	const events = "ecf.accepted ecf.delivered ecf.queued ecf.signed ecf.submitted"
	hooks.waitEvents(t, func(evs []*client.Event) bool { return strings.Join(eventTypes(evs, encf), " ") == events }, secret)
	s.Stop(t)

	spans := otlp.received()
	if otlp.service != "sello" {
		t.Errorf("service.name %q, want sello", otlp.service)
	}
	byID := map[string]otlpSpan{}
	for _, sp := range spans {
		byID[sp.SpanID] = sp
	}
	parentName := func(sp otlpSpan) string { return byID[sp.ParentID].Name }

	// The create request's span roots the document's trace.
	var root otlpSpan
	for _, sp := range spans {
		if sp.Name == "POST /{env}/documentos-ecf" && sp.Attrs["sello.correlation_id"] == cid {
			root = sp
		}
	}
	if root.SpanID == "" {
		t.Fatalf("no span POST /{env}/documentos-ecf with correlation id %s among %d spans", cid, len(spans))
	}
	if root.ParentID != "" || root.Attrs["http.route"] != "/{env}/documentos-ecf" || root.Attrs["http.response.status_code"] != "202" {
		t.Errorf("create span %+v: want a root, route /{env}/documentos-ecf, status 202", root)
	}
	var trace []otlpSpan
	for _, sp := range spans {
		if sp.TraceID == root.TraceID {
			trace = append(trace, sp)
		}
	}

	t.Run("OneTrace", func(t *testing.T) {
		for _, sp := range spans {
			if sp.Attrs["sello.document_id"] == docID && sp.TraceID != root.TraceID {
				t.Errorf("span %s of the document is in trace %s, not the create's %s", sp.Name, sp.TraceID, root.TraceID)
			}
		}
	})

	t.Run("Tree", func(t *testing.T) {
		for _, sp := range trace {
			if sp.SpanID == root.SpanID {
				continue
			}
			// Walk up to the root: every parent arrived, no cycle.
			cur, seen := sp, map[string]bool{}
			for cur.ParentID != "" && !seen[cur.SpanID] {
				seen[cur.SpanID] = true
				p, ok := byID[cur.ParentID]
				if !ok || p.TraceID != root.TraceID {
					t.Fatalf("span %s: parent %s of %s is not in the trace", sp.Name, cur.ParentID, cur.Name)
				}
				cur = p
			}
			if cur.SpanID != root.SpanID {
				t.Fatalf("span %s climbs to %s, not to the create span", sp.Name, cur.Name)
			}
		}
	})

	t.Run("Spans", func(t *testing.T) {
		parents := map[string][]string{} // name → its parents' names
		for _, sp := range trace {
			parents[sp.Name] = append(parents[sp.Name], parentName(sp))
		}
		for name, want := range map[string]string{
			"sello.document":          "POST /{env}/documentos-ecf",
			"sign":                    "sello.document",
			"dgii recepcion":          "sello.document",
			"dgii consultaresultado":  "sello.document",
			"verdict":                 "sello.document",
			"sello.delivery":          "sello.document", // the document's job delivers it after the verdict
			"receptor recepcion":      "sello.delivery",
			"dgii consultadirectorio": "sello.delivery",
		} {
			got := parents[name]
			if len(got) == 0 {
				t.Errorf("no span %s in the document's trace; spans: %v", name, parents)
				continue
			}
			for _, p := range got {
				if p != want {
					t.Errorf("span %s has parent %s, want %s", name, p, want)
				}
			}
		}
		for _, sp := range trace {
			switch sp.Name {
			case "sello.document", "sello.delivery":
				if sp.Attrs["sello.correlation_id"] != cid || sp.Attrs["sello.document_id"] != docID {
					t.Errorf("span %s: correlation id %q, document %q; want %s, %s", sp.Name, sp.Attrs["sello.correlation_id"], sp.Attrs["sello.document_id"], cid, docID)
				}
			case "dgii recepcion":
				if sp.Attrs["dgii.service"] != "recepcion" || sp.Attrs["dgii.outcome"] != "ok" || sp.Attrs["sello.environment"] != "TesteCF" {
					t.Errorf("span dgii recepcion: %v", sp.Attrs)
				}
			case "verdict":
				if sp.Attrs["sello.status"] != "accepted" {
					t.Errorf("verdict span: status %q, want accepted", sp.Attrs["sello.status"])
				}
			}
		}
	})

	t.Run("Webhooks", func(t *testing.T) {
		// Each delivery: its own trace, "queue sello.webhook" linked to
		// the document's trace, the job's run and its attempt below.
		traces := map[string]bool{}
		for _, sp := range spans {
			if sp.Name != "webhook attempt" {
				continue
			}
			job := byID[sp.ParentID]
			queue := byID[job.ParentID]
			if job.Name != "sello.webhook" || queue.Name != "queue sello.webhook" || queue.ParentID != "" || len(queue.Links) != 1 {
				t.Fatalf("webhook attempt under %q under %q (parent %q, links %v)", job.Name, queue.Name, queue.ParentID, queue.Links)
			}
			if traceOf, _, _ := strings.Cut(queue.Links[0], "/"); traceOf != root.TraceID {
				continue // another document's
			}
			if sp.TraceID == root.TraceID || traces[sp.TraceID] {
				t.Fatalf("webhook attempt in trace %s: want a trace of its own", sp.TraceID)
			}
			if sp.Attrs["http.response.status_code"] != "200" || job.Attrs["sello.correlation_id"] != cid {
				t.Errorf("webhook attempt %v, job %v", sp.Attrs, job.Attrs)
			}
			traces[sp.TraceID] = true
		}
		if len(traces) != len(strings.Fields(events)) {
			t.Fatalf("%d webhook delivery traces linked to the document's, want %d (%s)", len(traces), len(strings.Fields(events)), events)
		}
	})

	t.Run("Reception", func(t *testing.T) {
		n := 0
		for _, sp := range spans {
			if sp.Name == "POST /{env}/receptor/{rnc}/fe/recepcion/api/ecf" {
				n++
				if sp.ParentID != "" || sp.TraceID == root.TraceID || sp.Attrs["http.response.status_code"] != "200" {
					t.Errorf("reception span %+v: want the 200 root of its own trace", sp)
				}
			}
		}
		if n != 1 {
			var roots []string
			for _, sp := range spans {
				if sp.ParentID == "" {
					roots = append(roots, sp.Name)
				}
			}
			t.Fatalf("%d reception spans, want 1 (the buyer's); roots: %v", n, roots)
		}
	})

	t.Run("Logs", func(t *testing.T) {
		kinds := map[string]bool{}
		inTrace := 0
		for _, l := range logs.jsonLines(t) {
			if l["trace_id"] == root.TraceID {
				inTrace++
				if l["correlation_id"] != cid {
					t.Errorf("log line of the document's trace without its correlation id %s: %v", cid, l)
				}
			}
			if l["msg"] == "job run" && l["correlation_id"] == cid {
				kinds[l["kind"].(string)] = true
			}
		}
		// The delivery is a step of the document's job (no DeliveryJob
		// when the buyer answers the first try).
		for _, k := range []string{"sello.document", "sello.webhook"} {
			if !kinds[k] {
				t.Errorf("no job run line of kind %s with correlation id %s (got %v)", k, cid, kinds)
			}
		}
		// The request's and the document's job run's (the delivery is
		// a step of that run now, not a job of its own).
		if inTrace < 2 {
			t.Errorf("%d log lines in the document's trace, want at least the request's and its job run's", inTrace)
		}
	})
}

// TestTracingFlags: serve refuses an OTLP endpoint that is not an http(s)
// URL, from the flag or from OTEL_EXPORTER_OTLP_ENDPOINT, and a log level
// it does not know, before it opens anything.
func TestTracingFlags(t *testing.T) {
	env := func(k, v string) func(string) string {
		return func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		name   string
		args   []string
		getenv func(string) string
		want   string
	}{
		{"ErrEndpoint", []string{"--otlp-endpoint", "localhost:4318"}, noEnv, `--otlp-endpoint: OTLP endpoint "localhost:4318": want an http or https URL`},
		{"ErrEndpointEnv", nil, env("OTEL_EXPORTER_OTLP_ENDPOINT", "grpc://collector:4317"), `OTLP endpoint "grpc://collector:4317"`},
		{"ErrLogLevel", []string{"--log-level", "loud"}, noEnv, `--log-level must be debug, info, warn or error, not "loud"`},
		{"ErrLogLevelEnv", nil, env("SELLO_LOG_LEVEL", "verbose"), `not "verbose"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			err := run(t.Context(), append([]string{"serve", "--data", data}, tt.args...), tt.getenv, io.Discard, io.Discard)
			var usage usageError
			if !errors.As(err, &usage) || !strings.Contains(usage.msg, tt.want) {
				t.Fatalf("got %v, want a usage error with %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(data); len(entries) != 0 {
				t.Fatalf("serve wrote %d files before refusing", len(entries))
			}
		})
	}
}
