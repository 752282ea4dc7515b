package tracing

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

type correlationKey struct{}

// WithCorrelationID returns ctx carrying the correlation id id: the API's
// request id (X-Correlation-Id), which a job keeps from the request that
// queued it.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

// CorrelationID returns ctx's correlation id, "" when it has none.
func CorrelationID(ctx context.Context) string {
	id, _ := ctx.Value(correlationKey{}).(string)
	return id
}

// Start starts a span named name, child of ctx's span, with that span's
// tracer provider, when ctx's span is recorded. Otherwise it creates
// nothing and returns ctx and its span, which is not recording: End and
// SetAttributes on it do nothing (callers building attributes for a span
// check IsRecording first, so that tracing off costs no allocation).
func Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer(Scope).Start(ctx, name, opts...)
}

// End ends span, marked an error with err's text when err is not nil.
func End(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Traceparent returns ctx's span context in W3C's traceparent format
// (version 00), "" when ctx has no valid span context.
func Traceparent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

// ContextWithTraceparent returns ctx with the span context that the W3C
// traceparent tp names as its remote parent. Returns an error, and ctx
// unchanged, when tp is not a valid traceparent.
func ContextWithTraceparent(ctx context.Context, tp string) (context.Context, error) {
	out := propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp})
	if out == ctx { // Extract returns ctx itself when tp is invalid

		return ctx, errors.New("invalid traceparent " + tp)
	}
	return out, nil
}
