package tracing

import (
	"context"
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// StartRequest starts the server span of r with tp, named for its method
// until SetRoute names its route. Sello's API is public: every request
// starts a new trace, and a traceparent header the caller sent is linked to,
// not followed (a stranger's trace never grows Sello's spans). The span
// carries the method, the path and ctx's correlation id.
func StartRequest(tp trace.TracerProvider, r *http.Request) (context.Context, trace.Span) {
	ctx := r.Context()
	opts := []trace.SpanStartOption{
		trace.WithNewRoot(),
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			semconv.HTTPRequestMethodKey.String(r.Method),
			semconv.URLPath(r.URL.Path),
			AttrCorrelationID.String(CorrelationID(ctx))),
	}
	if h := r.Header.Get("Traceparent"); h != "" {
		remote := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(r.Header)))
		if remote.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: remote}))
		}
	}
	return tp.Tracer(Scope).Start(ctx, r.Method, opts...)
}

// SetRoute names ctx's span after the route that serves the request (the
// mux's pattern, "POST /{env}/documentos-ecf"), and records its path as
// http.route. It does nothing outside a recorded span.
func SetRoute(ctx context.Context, pattern string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() || pattern == "" {
		return
	}
	span.SetName(pattern)
	route := pattern
	if _, path, ok := strings.Cut(pattern, " "); ok {
		route = path
	}
	span.SetAttributes(semconv.HTTPRoute(route))
}

// EndRequest ends a server span with the answer's status: an error from
// 500 on (a 4xx is the caller's, per OpenTelemetry's HTTP conventions).
func EndRequest(span trace.Span, status int) {
	if status == 0 {
		status = http.StatusOK
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}
