package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/apitest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTraceRequests: with a TracerProvider every request is the root span
// of its own trace, named by its route (its method alone where no route
// takes the path), with its correlation id and status.
func TestTraceRequests(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	f := mustFixture(t, func(s *api.Server) { s.TracerProvider = tp })

	created := f.do("POST", "/TesteCF/documentos-ecf", apitest.Invoice(testRNC))
	missing := f.do("GET", "/no/such/path", nil)
	if created.Code != http.StatusAccepted || missing.Code != http.StatusNotFound {
		t.Fatalf("statuses %d, %d", created.Code, missing.Code)
	}
	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want one per request", len(spans))
	}
	for i, want := range []struct {
		name, status, cid string
	}{
		{"POST /{env}/documentos-ecf", "202", created.Header().Get("X-Correlation-Id")},
		{"GET", "404", missing.Header().Get("X-Correlation-Id")},
	} {
		s := spans[i]
		attrs := map[string]string{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.Emit()
		}
		if s.Name() != want.name || s.Parent().IsValid() || attrs["http.response.status_code"] != want.status || attrs["sello.correlation_id"] != want.cid || want.cid == "" {
			t.Errorf("span %q (parent %v, %v), want %q, a root, status %s, correlation id %s", s.Name(), s.Parent(), attrs, want.name, want.status, want.cid)
		}
	}
	if spans[0].SpanContext().TraceID() == spans[1].SpanContext().TraceID() {
		t.Error("two requests share a trace")
	}

}
