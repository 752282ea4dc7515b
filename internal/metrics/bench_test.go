package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/metrics"
)

// BenchmarkInstrument is a request through a mux with one route, without
// the metrics' middleware (Off) and with it (On): what Instrument adds to
// every request.
func BenchmarkInstrument(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{env}/documentos-ecf", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) })
	for _, tt := range []struct {
		name string
		h    http.Handler
	}{
		{"Off", mux},
		{"On", metrics.New(metrics.Options{}).Instrument(mux)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			req := httptest.NewRequest("POST", "/TesteCF/documentos-ecf", nil)
			w := httptest.NewRecorder()
			for b.Loop() {
				tt.h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkObserve is what the other hot-path observations cost: a
// document's transition and a store's commit.
func BenchmarkObserve(b *testing.B) {
	m := metrics.New(metrics.Options{})
	now := time.Now()
	doc := &sello.Document{Environment: sello.EnvTest, Status: sello.StatusSigned, CreatedAt: now, UpdatedAt: now.Add(time.Second)}
	b.Run("DocumentChanged", func(b *testing.B) {
		for b.Loop() {
			m.DocumentChanged(doc)
		}
	})
	b.Run("Commit", func(b *testing.B) {
		for b.Loop() {
			m.Commit(4, time.Millisecond)
		}
	})
}
