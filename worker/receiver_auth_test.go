package worker_test

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/worker"
)

// TestPruneReceiverAuth: the periodic job forgets the receivers' seeds and
// tokens once expired, and only then.
func TestPruneReceiverAuth(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{})
		now := h.now()
		tok, plain := sello.NewReceiverToken(h.tenant.ID, sello.EnvTest, nil, now)
		if err := st.RedeemReceiverSeed(t.Context(), h.tenant.ID, sello.EnvTest, "SEED", now.Add(sello.ReceiverSeedTTL), tok); err != nil {
			t.Fatal(err)
		}
		if seeds, tokens, err := h.w.PruneReceiverAuth(t.Context()); err != nil || seeds != 0 || tokens != 0 {
			t.Fatalf("at once: deleted %d seeds, %d tokens (%v), want none", seeds, tokens, err)
		}
		h.offset.Store(int64(sello.ReceiverSeedTTL))
		if seeds, tokens, err := h.w.PruneReceiverAuth(t.Context()); err != nil || seeds != 1 || tokens != 0 {
			t.Fatalf("when the seed expired: deleted %d seeds, %d tokens (%v), want 1, 0", seeds, tokens, err)
		}
		if _, err := st.CheckReceiverToken(t.Context(), h.tenant.ID, sello.EnvTest, sello.HashReceiverToken(plain), h.now()); err != nil {
			t.Fatalf("the live token is gone: %v", err)
		}
		h.offset.Store(int64(sello.ReceiverTokenTTL))
		if seeds, tokens, err := h.w.PruneReceiverAuth(t.Context()); err != nil || seeds != 0 || tokens != 1 {
			t.Fatalf("when the token expired: deleted %d seeds, %d tokens (%v), want 0, 1", seeds, tokens, err)
		}
	})
}

// TestReceiverAuthPruneJob: the prune is a periodic job, run at start on
// the job runner.
func TestReceiverAuthPruneJob(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{})
		issued := h.now().Add(-sello.ReceiverTokenTTL)
		tok, _ := sello.NewReceiverToken(h.tenant.ID, sello.EnvTest, nil, issued)
		if err := st.RedeemReceiverSeed(t.Context(), h.tenant.ID, sello.EnvTest, "SEED", issued.Add(sello.ReceiverSeedTTL), tok); err != nil {
			t.Fatal(err)
		}
		h.startPeriodic(t, st)
		// The seed's record is gone once the job ran: the same value is
		// recorded again.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			tok, _ := sello.NewReceiverToken(h.tenant.ID, sello.EnvTest, nil, h.now())
			err := st.RedeemReceiverSeed(t.Context(), h.tenant.ID, sello.EnvTest, "SEED", h.now().Add(sello.ReceiverSeedTTL), tok)
			if err == nil {
				break
			} else if sello.ErrorCodeOf(err) != sello.CodeUnauthenticated || time.Now().After(deadline) {
				t.Fatalf("the expired seed is still recorded 10 s after start: %v", err)
			}
		}
	})
}
