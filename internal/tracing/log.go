package tracing

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// Log attribute keys LogHandler adds.
const (
	LogCorrelationID = "correlation_id"
	LogTraceID       = "trace_id"
	LogSpanID        = "span_id"
)

// LogHandler returns h adding to each record logged with a context that
// context's correlation id (correlation_id, unless the record or the
// logger has one already) and, in a recorded or propagated trace, its
// trace_id and span_id: every line logged within a request or a job names
// them. The attributes go where h puts the record's own (within h's groups,
// if any).
func LogHandler(h slog.Handler) slog.Handler {
	if lh, ok := h.(*logHandler); ok {
		return lh
	}
	return &logHandler{h: h}
}

type logHandler struct {
	h slog.Handler
	// hasCID: the logger's attributes have a correlation_id.
	hasCID bool
}

func (l *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *logHandler) Handle(ctx context.Context, r slog.Record) error {
	cid := ""
	if !l.hasCID {
		cid = CorrelationID(ctx)
	}
	if cid != "" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == LogCorrelationID {
				cid = ""
			}
			return cid != ""
		})
	}
	sc := trace.SpanContextFromContext(ctx)
	if cid == "" && !sc.IsValid() {
		return l.h.Handle(ctx, r)
	}
	r = r.Clone() // the attributes added must not reach the caller's record
	if cid != "" {
		r.AddAttrs(slog.String(LogCorrelationID, cid))
	}
	if sc.IsValid() {
		r.AddAttrs(slog.String(LogTraceID, sc.TraceID().String()), slog.String(LogSpanID, sc.SpanID().String()))
	}
	return l.h.Handle(ctx, r)
}

func (l *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	has := l.hasCID
	for _, a := range attrs {
		has = has || a.Key == LogCorrelationID
	}
	return &logHandler{h: l.h.WithAttrs(attrs), hasCID: has}
}

func (l *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{h: l.h.WithGroup(name), hasCID: l.hasCID}
}
