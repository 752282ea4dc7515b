package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/internal/tracing"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// insert runs the insert side of p over jobs of kinds, as River's client
// does (its default metadata is {}), and returns their metadata.
func insert(t *testing.T, ctx context.Context, kinds ...string) [][]byte {
	t.Helper()
	params := make([]*rivertype.JobInsertParams, len(kinds))
	for i, k := range kinds {
		params[i] = &rivertype.JobInsertParams{Kind: k, Metadata: []byte("{}")}
	}
	inner := false
	if _, err := (&jobs.Propagation{}).InsertMany(ctx, params, func(context.Context) ([]*rivertype.JobInsertResult, error) {
		inner = true
		return nil, nil
	}); err != nil || !inner {
		t.Fatalf("InsertMany: %v, inner called %v", err, inner)
	}
	md := make([][]byte, len(params))
	for i, p := range params {
		md[i] = p.Metadata
	}
	return md
}

func carried(t *testing.T, md []byte) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal(md, &m); err != nil {
		t.Fatalf("%v: %s", err, md)
	}
	return m
}

func TestPropagationInsert(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())

	t.Run("Nothing", func(t *testing.T) {
		if md := insert(t, t.Context(), sello.DocumentJob{}.Kind()); string(md[0]) != "{}" {
			t.Fatalf("metadata %s from a bare context", md[0])
		}
	})
	t.Run("Correlated", func(t *testing.T) {
		md := insert(t, tracing.WithCorrelationID(t.Context(), "c-1"), sello.DocumentJob{}.Kind())
		if m := carried(t, md[0]); m["correlation_id"] != "c-1" || m["traceparent"] != "" {
			t.Fatalf("metadata %v", m)
		}
	})
	t.Run("Traced", func(t *testing.T) {
		ctx, span := tp.Tracer("test").Start(tracing.WithCorrelationID(t.Context(), "c-1"), "request")
		defer span.End()
		md := insert(t, ctx, sello.DocumentJob{}.Kind(), sello.WebhookJob{}.Kind(), sello.WebhookJob{}.Kind())
		doc, hook1, hook2 := carried(t, md[0]), carried(t, md[1]), carried(t, md[2])
		if doc["traceparent"] != tracing.Traceparent(ctx) || doc["correlation_id"] != "c-1" {
			t.Fatalf("document job's metadata %v, want the request's trace %s", doc, tracing.Traceparent(ctx))
		}
		// Each webhook job: the root of a trace of its own, linked to the
		// request's span.
		tid := span.SpanContext().TraceID().String()
		if strings.Contains(hook1["traceparent"], tid) || hook1["traceparent"] == hook2["traceparent"] || hook1["correlation_id"] != "c-1" {
			t.Fatalf("webhook jobs' metadata %v, %v: want two new traces", hook1, hook2)
		}
		var roots int
		for _, s := range rec.Ended() {
			if s.Name() == "queue sello.webhook" {
				roots++
				if s.Parent().IsValid() || len(s.Links()) != 1 || s.Links()[0].SpanContext.SpanID() != span.SpanContext().SpanID() {
					t.Fatalf("queue span: parent %v, links %v", s.Parent(), s.Links())
				}
			}
		}
		if roots != 2 {
			t.Fatalf("%d queue spans, want 2", roots)
		}
	})
	t.Run("Merge", func(t *testing.T) {
		p := &rivertype.JobInsertParams{Kind: "k", Metadata: []byte(`{"other":1}`)}
		ctx := tracing.WithCorrelationID(t.Context(), "c-1")
		(&jobs.Propagation{}).InsertMany(ctx, []*rivertype.JobInsertParams{p}, func(context.Context) ([]*rivertype.JobInsertResult, error) { return nil, nil })
		if string(p.Metadata) != `{"correlation_id":"c-1","other":1}` {
			t.Fatalf("metadata %s", p.Metadata)
		}
	})
}

func TestPropagationWork(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	ctx, parent := tp.Tracer("test").Start(t.Context(), "request")
	parent.End()
	md := insert(t, tracing.WithCorrelationID(ctx, "c-1"), sello.DocumentJob{}.Kind())[0]

	for _, tc := range []struct {
		name    string
		err     error
		outcome string
	}{
		{"OK", nil, "completed"},
		{"Snooze", river.JobSnooze(0), "snoozed"},
		{"Fail", errors.New("boom"), "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.Reset()
			var logs bytes.Buffer
			p := &jobs.Propagation{TracerProvider: tp, Logger: slog.New(tracing.LogHandler(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))}
			job := &rivertype.JobRow{ID: 7, Kind: sello.DocumentJob{}.Kind(), Attempt: 2, Metadata: md}
			var inner context.Context
			err := p.Work(t.Context(), job, func(ctx context.Context) error { inner = ctx; return tc.err })
			if !errors.Is(err, tc.err) {
				t.Fatalf("Work returned %v, want %v", err, tc.err)
			}
			if got := tracing.CorrelationID(inner); got != "c-1" {
				t.Fatalf("the run's correlation id %q, want c-1", got)
			}
			spans := rec.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans", len(spans))
			}
			s := spans[0]
			if s.Name() != "sello.document" || s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
				t.Fatalf("span %s, parent %v: want the request's child", s.Name(), s.Parent())
			}
			if trace.SpanContextFromContext(inner).SpanID() != s.SpanContext().SpanID() {
				t.Fatal("the run's context is not in the job's span")
			}
			attrs := map[string]string{}
			for _, a := range s.Attributes() {
				attrs[string(a.Key)] = a.Value.Emit()
			}
			if attrs["river.job.outcome"] != tc.outcome || attrs["river.job.id"] != "7" || attrs["river.job.attempt"] != "2" || attrs["sello.correlation_id"] != "c-1" {
				t.Fatalf("attributes %v", attrs)
			}
			if (s.Status().Code == codes.Error) != (tc.outcome == "failed") {
				t.Fatalf("status %v for outcome %s", s.Status(), tc.outcome)
			}
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatalf("%v: %s", err, logs.Bytes())
			}
			if line["msg"] != "job run" || line["outcome"] != tc.outcome || line["correlation_id"] != "c-1" || line["trace_id"] != parent.SpanContext().TraceID().String() {
				t.Fatalf("log line %v", line)
			}
		})
	}

	t.Run("Off", func(t *testing.T) {
		rec.Reset()
		var inner context.Context
		job := &rivertype.JobRow{Kind: sello.DocumentJob{}.Kind(), Metadata: md}
		if err := (&jobs.Propagation{}).Work(t.Context(), job, func(ctx context.Context) error { inner = ctx; return nil }); err != nil {
			t.Fatal(err)
		}
		if tracing.CorrelationID(inner) != "c-1" || trace.SpanContextFromContext(inner).IsValid() || len(rec.Ended()) != 0 {
			t.Fatal("without a provider: want the correlation id, and no span")
		}
	})
}

// BenchmarkPropagationInsert is what the middleware adds to the insert of
// a created document's job, tracing off: the request's correlation id
// written into the job's metadata.
func BenchmarkPropagationInsert(b *testing.B) {
	ctx := tracing.WithCorrelationID(context.Background(), "0d6f1c2e-8a7b-4c1d-9e2f-3a4b5c6d7e8f")
	p := &jobs.Propagation{}
	inner := func(context.Context) ([]*rivertype.JobInsertResult, error) { return nil, nil }
	for b.Loop() {
		params := []*rivertype.JobInsertParams{{Kind: sello.DocumentJob{}.Kind(), Metadata: []byte("{}")}}
		if _, err := p.InsertMany(ctx, params, inner); err != nil {
			b.Fatal(err)
		}
	}
}
