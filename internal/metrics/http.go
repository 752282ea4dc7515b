package metrics

import (
	"net/http"
	"time"

	"github.com/sello-do/sello/internal/httpstatus"
)

// unmatchedRoute is the route of a request no pattern took (404, 405).
const unmatchedRoute = "unmatched"

// Instrument observes sello_http_request_duration_seconds for each request
// next serves, under the pattern of the http.ServeMux in next that took it
// (r.Pattern, which the mux sets on the request it is given: every
// handler between this one and the mux must pass r on, not a copy) and
// the status written. With a nil m it returns next.
func (m *Metrics) Instrument(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &httpstatus.Recorder{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = unmatchedRoute
		}
		status := sw.Status
		if status == 0 {
			status = http.StatusOK // what the server sends for a handler that wrote nothing
		}
		m.httpDuration.WithLabelValues(route, codeLabel(status)).Observe(time.Since(start).Seconds())
	})
}
