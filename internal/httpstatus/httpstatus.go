// Package httpstatus records the status a handler writes, for the
// middleware that logs or measures requests (the API's and the portal's
// access logs, the metrics).
package httpstatus

import "net/http"

// Recorder is an http.ResponseWriter that remembers the final status
// written through it: the first non-informational WriteHeader, or 200 at
// the first Write. Status is 0 while nothing was written.
type Recorder struct {
	http.ResponseWriter
	Status int
}

// WriteHeader records status unless one was recorded or it is a 1xx.
func (r *Recorder) WriteHeader(status int) {
	if r.Status == 0 && status >= 200 {
		r.Status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

// Write records 200 when nothing was recorded before.
func (r *Recorder) Write(b []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (the receivers
// set its read deadline).
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
