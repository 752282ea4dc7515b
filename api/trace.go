package api

import (
	"net/http"

	"github.com/sello-do/sello/internal/httpstatus"
	"github.com/sello-do/sello/internal/tracing"
)

// withTrace makes every request the root span of a trace, when the server
// has a TracerProvider (docs/tracing.md): named for its route once the mux
// finds it (withUnmatched), with its correlation id and status. Without
// one it is next itself: tracing off costs the requests nothing.
func (s *Server) withTrace(next http.Handler) http.Handler {
	if s.TracerProvider == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := tracing.StartRequest(s.TracerProvider, r)
		rec := &httpstatus.Recorder{ResponseWriter: w}
		defer func() { tracing.EndRequest(span, rec.Status) }()
		next.ServeHTTP(rec, r.WithContext(ctx))
	})
}
