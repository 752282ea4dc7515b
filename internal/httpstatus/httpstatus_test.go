package httpstatus

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRecorder(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(w http.ResponseWriter)
		want  int
	}{
		{"nothing written", func(http.ResponseWriter) {}, 0},
		{"a body alone", func(w http.ResponseWriter) { w.Write([]byte("x")) }, http.StatusOK},
		{"a status", func(w http.ResponseWriter) { w.WriteHeader(http.StatusTeapot) }, http.StatusTeapot},
		{"the first status kept", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusNotFound)
			w.WriteHeader(http.StatusInternalServerError)
		}, http.StatusNotFound},
		{"an informational status skipped", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
		}, http.StatusCreated},
		{"a status after a body", func(w http.ResponseWriter) {
			w.Write([]byte("x"))
			w.WriteHeader(http.StatusBadRequest)
		}, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &Recorder{ResponseWriter: httptest.NewRecorder()}
			c.write(rec)
			if rec.Status != c.want {
				t.Errorf("Status = %d, want %d", rec.Status, c.want)
			}
			if rec.Unwrap() == nil {
				t.Error("Unwrap returned nil")
			}
		})
	}
}
