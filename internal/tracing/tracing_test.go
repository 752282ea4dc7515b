package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sello-do/sello/internal/tracing"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// mustRecorder is a tracer provider whose ended spans the recorder keeps.
func mustRecorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return tp, rec
}

func TestParseEndpoint(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"http://localhost:4318", "http://localhost:4318/v1/traces"},
		{"http://localhost:4318/", "http://localhost:4318/v1/traces"},
		{"https://otlp.example.com/v1/traces", "https://otlp.example.com/v1/traces"},
		{"https://gateway.example.com/otlp/v1/traces", "https://gateway.example.com/otlp/v1/traces"},
		{"localhost:4318", ""},
		{"grpc://localhost:4317", ""},
		{"http://", ""},
		{"", ""},
	} {
		got, err := tracing.ParseEndpoint(tc.in)
		if tc.want == "" {
			if err == nil || !strings.Contains(err.Error(), "want an http or https URL") {
				t.Errorf("ParseEndpoint(%q) = %q, %v; want an error", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseEndpoint(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestNew(t *testing.T) {
	t.Run("Off", func(t *testing.T) {
		p, err := tracing.New(t.Context(), tracing.Config{})
		if err != nil || p.Enabled() || p.TracerProvider() != nil || p.Shutdown(t.Context()) != nil {
			t.Fatalf("New without an endpoint: %v, enabled %v, provider %v", err, p.Enabled(), p.TracerProvider())
		}
	})
	t.Run("On", func(t *testing.T) {
		// The exporter posts to the endpoint once the provider shuts down.
		posted := make(chan string, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case posted <- r.URL.Path:
			default:
			}
		}))
		defer srv.Close()
		p, err := tracing.New(t.Context(), tracing.Config{Endpoint: srv.URL, Version: "test"})
		if err != nil || !p.Enabled() {
			t.Fatalf("New(%s): %v, enabled %v", srv.URL, err, p.Enabled())
		}
		_, span := p.TracerProvider().Tracer("test").Start(t.Context(), "span")
		span.End()
		if err := p.Shutdown(t.Context()); err != nil {
			t.Fatal(err)
		}
		select {
		case path := <-posted:
			if path != "/v1/traces" {
				t.Fatalf("exported to %s, want /v1/traces", path)
			}
		default:
			t.Fatal("Shutdown exported nothing")
		}
	})
	t.Run("BadEndpoint", func(t *testing.T) {
		if _, err := tracing.New(t.Context(), tracing.Config{Endpoint: "localhost:4318"}); err == nil {
			t.Fatal("New accepted an endpoint without a scheme")
		}
	})
}

func TestStart(t *testing.T) {
	t.Run("Untraced", func(t *testing.T) {
		ctx := t.Context()
		got, span := tracing.Start(ctx, "child")
		if got != ctx || span.IsRecording() || span.SpanContext().IsValid() {
			t.Fatal("Start outside a trace made a span")
		}
		tracing.End(span, errors.New("ignored"))
	})
	t.Run("Traced", func(t *testing.T) {
		tp, rec := mustRecorder(t)
		ctx, parent := tp.Tracer("test").Start(t.Context(), "parent")
		_, child := tracing.Start(ctx, "child")
		tracing.End(child, errors.New("boom"))
		parent.End()
		spans := rec.Ended()
		if len(spans) != 2 || spans[0].Name() != "child" {
			t.Fatalf("ended %d spans", len(spans))
		}
		c := spans[0]
		if c.Parent().SpanID() != parent.SpanContext().SpanID() || c.SpanContext().TraceID() != parent.SpanContext().TraceID() {
			t.Fatal("the child is not the parent's")
		}
		if c.Status().Code != codes.Error || c.Status().Description != "boom" {
			t.Fatalf("child status %+v, want the error", c.Status())
		}
	})
}

func TestTraceparent(t *testing.T) {
	if got := tracing.Traceparent(t.Context()); got != "" {
		t.Fatalf("Traceparent without a span = %q", got)
	}
	tp, _ := mustRecorder(t)
	ctx, span := tp.Tracer("test").Start(t.Context(), "span")
	defer span.End()
	s := tracing.Traceparent(ctx)
	sc := span.SpanContext()
	if want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"; s != want {
		t.Fatalf("Traceparent = %q, want %q", s, want)
	}
	got, err := tracing.ContextWithTraceparent(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if r := trace.SpanContextFromContext(got); !r.IsRemote() || r.TraceID() != sc.TraceID() || r.SpanID() != sc.SpanID() || !r.IsSampled() {
		t.Fatalf("round trip gave %+v", r)
	}
	for _, bad := range []string{"", "00-0-0-01", "garbage", "00-" + sc.TraceID().String() + "-0000000000000000-01"} {
		if got, err := tracing.ContextWithTraceparent(t.Context(), bad); err == nil || got != t.Context() {
			t.Errorf("ContextWithTraceparent(%q): %v; want an error and ctx unchanged", bad, err)
		}
	}
}

func TestCorrelationID(t *testing.T) {
	if got := tracing.CorrelationID(t.Context()); got != "" {
		t.Fatalf("CorrelationID of a bare context = %q", got)
	}
	if got := tracing.CorrelationID(tracing.WithCorrelationID(t.Context(), "c-1")); got != "c-1" {
		t.Fatalf("CorrelationID = %q, want c-1", got)
	}
}

// logLine logs msg with the attributes, through LogHandler, and returns
// the line's JSON fields.
func logLine(t *testing.T, ctx context.Context, with []any, msg string, attrs ...any) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	l := slog.New(tracing.LogHandler(slog.NewJSONHandler(&buf, nil))).With(with...)
	l.InfoContext(ctx, msg, attrs...)
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	if n := strings.Count(buf.String(), `"correlation_id"`); n > 1 {
		t.Fatalf("correlation_id %d times: %s", n, buf.Bytes())
	}
	return m
}

func TestLogHandler(t *testing.T) {
	ctx := tracing.WithCorrelationID(t.Context(), "c-1")
	tp, _ := mustRecorder(t)
	traced, span := tp.Tracer("test").Start(ctx, "span")
	defer span.End()
	sc := span.SpanContext()
	for _, tc := range []struct {
		name            string
		ctx             context.Context
		with, attrs     []any
		cid, trace, sid string
	}{
		{name: "Plain", ctx: t.Context()},
		{name: "Correlated", ctx: ctx, cid: "c-1"},
		{name: "Traced", ctx: traced, cid: "c-1", trace: sc.TraceID().String(), sid: sc.SpanID().String()},
		{name: "RecordHasOne", ctx: ctx, attrs: []any{"correlation_id", "own"}, cid: "own"},
		{name: "LoggerHasOne", ctx: ctx, with: []any{"correlation_id", "bound"}, cid: "bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := logLine(t, tc.ctx, tc.with, "hello", tc.attrs...)
			for k, want := range map[string]string{"correlation_id": tc.cid, "trace_id": tc.trace, "span_id": tc.sid} {
				got, _ := m[k].(string)
				if got != want {
					t.Errorf("%s = %q, want %q (line %v)", k, got, want, m)
				}
			}
		})
	}
	t.Run("Level", func(t *testing.T) {
		var buf bytes.Buffer
		l := slog.New(tracing.LogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
		if l.Enabled(ctx, slog.LevelInfo) || !l.Enabled(ctx, slog.LevelWarn) {
			t.Fatal("LogHandler does not keep the handler's level")
		}
	})
}

func TestStartRequest(t *testing.T) {
	tp, rec := mustRecorder(t)
	// A caller's traceparent is linked, never followed.
	remote := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	r := httptest.NewRequest("POST", "/TesteCF/documentos-ecf", nil)
	r.Header.Set("Traceparent", remote)
	r = r.WithContext(tracing.WithCorrelationID(r.Context(), "c-1"))
	ctx, span := tracing.StartRequest(tp, r)
	tracing.SetRoute(ctx, "POST /{env}/documentos-ecf")
	tracing.EndRequest(span, http.StatusServiceUnavailable)

	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if s.Name() != "POST /{env}/documentos-ecf" || s.Parent().IsValid() || s.SpanKind() != trace.SpanKindServer {
		t.Fatalf("span %q, parent %v, kind %v: want the route's root server span", s.Name(), s.Parent(), s.SpanKind())
	}
	if s.SpanContext().TraceID().String() == "0af7651916cd43dd8448eb211c80319c" {
		t.Fatal("the span joined the caller's trace")
	}
	if len(s.Links()) != 1 || s.Links()[0].SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Fatalf("links %v, want the caller's span", s.Links())
	}
	attrs := map[string]string{}
	for _, a := range s.Attributes() {
		attrs[string(a.Key)] = a.Value.Emit()
	}
	for k, want := range map[string]string{
		"http.request.method": "POST", "url.path": "/TesteCF/documentos-ecf", "http.route": "/{env}/documentos-ecf",
		"http.response.status_code": "503", "sello.correlation_id": "c-1",
	} {
		if attrs[k] != want {
			t.Errorf("%s = %q, want %q", k, attrs[k], want)
		}
	}
	if s.Status().Code != codes.Error {
		t.Errorf("status %v: a 503 is an error", s.Status())
	}
}

// BenchmarkLogHandler is the API's access log line of a request (which
// names its correlation id itself) written by the JSON handler alone
// (Plain, before LogHandler) and through LogHandler, as serve writes it
// with tracing off (Wrapped: the record is scanned, nothing added).
func BenchmarkLogHandler(b *testing.B) {
	ctx := tracing.WithCorrelationID(context.Background(), "0d6f1c2e-8a7b-4c1d-9e2f-3a4b5c6d7e8f")
	for _, bc := range []struct {
		name string
		h    slog.Handler
	}{
		{"Plain", slog.NewJSONHandler(io.Discard, nil)},
		{"Wrapped", tracing.LogHandler(slog.NewJSONHandler(io.Discard, nil))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := slog.New(bc.h)
			for b.Loop() {
				l.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("correlation_id", tracing.CorrelationID(ctx)), slog.String("method", "POST"), slog.String("path", "/TesteCF/documentos-ecf"), slog.Int("status", 202))
			}
		})
	}
}
