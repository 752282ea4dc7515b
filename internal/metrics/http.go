package metrics

import (
	"net/http"
	"time"
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
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		route := r.Pattern
		if route == "" {
			route = unmatchedRoute
		}
		status := sw.status
		if status == 0 {
			status = http.StatusOK // what the server sends for a handler that wrote nothing
		}
		m.httpDuration.WithLabelValues(route, codeLabel(status)).Observe(time.Since(start).Seconds())
	})
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 && status >= 200 { // not an informational 1xx
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
