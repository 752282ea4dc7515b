package worker_test

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/worker"
)

// TestDeleteOldEvents: the retention job deletes events older than 30
// days, and only those.
func TestDeleteOldEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{})
		e := h.endpoint(t, sello.EnvTest, "https://hooks.example.com/sello", secretA)
		if _, err := st.DisableWebhookEndpoint(t.Context(), h.tenant.ID, e.ID, "for the test", time.Now()); err != nil {
			t.Fatal(err)
		}
		if n, err := h.w.DeleteOldEvents(t.Context()); err != nil || n != 0 {
			t.Fatalf("deleted %d (%v) of today's events", n, err)
		}
		if len(h.disabledEvents(t, sello.EnvTest, 1)) != 1 {
			t.Fatal("today's event is gone")
		}
		h.offset.Store(int64(sello.EventRetention + time.Hour))
		if n, err := h.w.DeleteOldEvents(t.Context()); err != nil || n != 1 {
			t.Fatalf("31 days later: deleted %d (%v), want 1", n, err)
		}
		if len(h.disabledEvents(t, sello.EnvTest, 0)) != 0 {
			t.Fatal("the old event is still listed")
		}
	})
}
