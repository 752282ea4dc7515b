package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ownTrace are the kinds of jobs that start a trace of their own, linked
// to the work that queued them, rather than growing its trace: a webhook
// delivery (one trace per delivery, across its attempts) and the
// environment's contingency, which no one document owns. Every other job
// continues the trace that queued it: a document's job the request that
// created the document, its delivery the run that recorded the verdict.
var ownTrace = map[string]bool{
	sello.WebhookJob{}.Kind():     true,
	sello.ContingencyJob{}.Kind(): true,
}

// carried is what a job keeps, in River's metadata, of the context that
// queued it.
type carried struct {
	// Traceparent is the W3C trace context its runs' spans are children
	// of.
	Traceparent string `json:"traceparent,omitempty"`
	// CorrelationID is the correlation id of the request that queued it
	// (or that queued the job that queued it).
	CorrelationID string `json:"correlation_id,omitempty"`
}

// Attribute keys of the jobs' spans.
const (
	AttrJobID      = attribute.Key("river.job.id")
	AttrJobKind    = attribute.Key("river.job.kind")
	AttrJobAttempt = attribute.Key("river.job.attempt")
	// AttrJobOutcome is how the run ended (Outcome).
	AttrJobOutcome = attribute.Key("river.job.outcome")
)

// Propagation is River middleware that carries a correlation id and a
// trace from the code that queues a job to the job's runs. On insert it
// writes, into each job's metadata, the inserting context's correlation id
// and trace context (for the kinds in ownTrace, that of a new trace's
// root, linked to the inserting span). On work it gives the run's context
// that correlation id and, with a TracerProvider, a span named for the
// job's kind, child of the carried trace context (a root without one).
//
// The stores' insert clients and the job runner both install it; the
// insert side needs no field set.
type Propagation struct {
	river.MiddlewareDefaults
	// TracerProvider makes the runs' spans; nil makes none.
	TracerProvider trace.TracerProvider
	// Logger, when it logs debug lines, gets one per run (kind, id,
	// attempt, outcome, duration); nil logs nothing.
	Logger *slog.Logger
}

// InsertMany implements rivertype.JobInsertMiddleware.
func (p *Propagation) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	cid, tp := tracing.CorrelationID(ctx), tracing.Traceparent(ctx)
	if cid == "" && tp == "" {
		return doInner(ctx)
	}
	for _, jp := range params {
		c := carried{Traceparent: tp, CorrelationID: cid}
		if ownTrace[jp.Kind] {
			c.Traceparent = newTrace(ctx, jp.Kind)
		}
		md, err := withCarried(jp.Metadata, c)
		if err != nil {
			return nil, fmt.Errorf("insert %s job: %w", jp.Kind, err)
		}
		jp.Metadata = md
	}
	return doInner(ctx)
}

// newTrace starts and ends the root span of a new trace for a job of kind,
// linked to ctx's span, and returns its traceparent; "" when ctx's span is
// not recorded.
func newTrace(ctx context.Context, kind string) string {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ""
	}
	ctx, span := parent.TracerProvider().Tracer(tracing.Scope).Start(ctx, "queue "+kind,
		trace.WithNewRoot(),
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithLinks(trace.Link{SpanContext: parent.SpanContext()}),
		trace.WithAttributes(AttrJobKind.String(kind), tracing.AttrCorrelationID.String(tracing.CorrelationID(ctx))))
	span.End()
	return tracing.Traceparent(ctx)
}

// withCarried returns the metadata md with c's fields set.
func withCarried(md []byte, c carried) ([]byte, error) {
	if len(md) == 0 || string(md) == "{}" {
		return json.Marshal(c)
	}
	var m map[string]any
	if err := json.Unmarshal(md, &m); err != nil {
		return nil, fmt.Errorf("read metadata: %w", err)
	}
	if c.Traceparent != "" {
		m["traceparent"] = c.Traceparent
	}
	if c.CorrelationID != "" {
		m["correlation_id"] = c.CorrelationID
	}
	return json.Marshal(m)
}

// Work implements rivertype.WorkerMiddleware.
func (p *Propagation) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	var c carried
	if len(job.Metadata) > len("{}") {
		// River's own JSON: a job without our keys is simply not carried.
		_ = json.Unmarshal(job.Metadata, &c)
	}
	if c.CorrelationID != "" {
		ctx = tracing.WithCorrelationID(ctx, c.CorrelationID)
	}
	span := trace.SpanFromContext(ctx)
	if p.TracerProvider != nil {
		if c.Traceparent != "" {
			ctx, _ = tracing.ContextWithTraceparent(ctx, c.Traceparent)
		}
		ctx, span = p.TracerProvider.Tracer(tracing.Scope).Start(ctx, job.Kind,
			trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(
				AttrJobID.Int64(job.ID), AttrJobKind.String(job.Kind), AttrJobAttempt.Int(job.Attempt),
				tracing.AttrCorrelationID.String(c.CorrelationID)))
	}
	start := time.Now()
	err := doInner(ctx)
	outcome := Outcome(err)
	if span.IsRecording() {
		span.SetAttributes(AttrJobOutcome.String(outcome))
		if outcome == "failed" || outcome == "cancelled" {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
	if p.Logger != nil && p.Logger.Enabled(ctx, slog.LevelDebug) {
		attrs := []slog.Attr{slog.String("kind", job.Kind), slog.Int64("job_id", job.ID), slog.Int("attempt", job.Attempt),
			slog.String("outcome", outcome), slog.Duration("duration", time.Since(start))}
		if outcome == "failed" || outcome == "cancelled" {
			attrs = append(attrs, slog.String("err", err.Error()))
		}
		p.Logger.LogAttrs(ctx, slog.LevelDebug, "job run", attrs...)
	}
	return err
}

// Outcome names how a run of a job that returned err ended: completed,
// snoozed, cancelled or failed (the spans' river.job.outcome, the metrics'
// outcome label).
func Outcome(err error) string {
	var snooze *rivertype.JobSnoozeError
	var cancel *rivertype.JobCancelError
	switch {
	case err == nil:
		return "completed"
	case errors.As(err, &snooze):
		return "snoozed"
	case errors.As(err, &cancel):
		return "cancelled"
	}
	return "failed"
}
