package storetest

import (
	"strings"
	"sync"
	"testing"

	"github.com/sello-do/sello"
)

// testSequenceWarnings checks WarnSequence: each warning of a range is
// written once, from the range as stored, and apart from the other warning
// and the other ranges.
func testSequenceWarnings(t *testing.T, open Open) {
	t.Run("WarnOnce", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		expires := sello.Date{Year: 2027, Month: 1, Day: 15}
		s := &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 11, To: 60, ExpiresOn: &expires}
		if err := e.s.AddSequence(ctx, s); err != nil {
			t.Fatalf("AddSequence: %v", err)
		}
		other := MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 1, 50)
		now := e.clock.Peek()

		for _, w := range []sello.SequenceWarning{sello.SequenceWarningLow, sello.SequenceWarningExpiring} {
			const goroutines = 8
			var wg sync.WaitGroup
			var mu sync.Mutex
			var warned int
			for range goroutines {
				wg.Go(func() {
					ok, err := e.s.WarnSequence(ctx, s, w, now)
					if err != nil {
						t.Errorf("WarnSequence %s: %v", w, err)
					}
					if ok {
						mu.Lock()
						warned++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if warned != 1 {
				t.Errorf("%s warned: got %d of %d calls, want exactly 1", w, warned, goroutines)
			}
			if ok, err := e.s.WarnSequence(ctx, s, w, now); ok || err != nil {
				t.Errorf("warn %s again: got %v, %v; want false, nil", w, ok, err)
			}
		}
		evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, 2)
		if len(evs) != 2 {
			t.Fatalf("events: got %d, want 2", len(evs))
		}
		payload := map[string]any{"sequenceId": s.ID, "type": "E31", "from": float64(11), "to": float64(60), "left": float64(50), "expiresOn": "2027-01-15"}
		for i, want := range []sello.EventType{sello.EventSequenceLow, sello.EventSequenceExpiring} {
			ev := evs[i]
			if ev.Type != want || ev.ID == "" || ev.Document != nil || ev.TenantID != tn.ID || ev.Environment != sello.EnvTest || !ev.CreatedAt.Equal(now) {
				t.Errorf("event %d: got %+v, want %s of %s at %v without a document", i, ev, want, tn.ID, now)
			}
			if ev.Data.Severity != "warning" || !strings.Contains(ev.Data.Message, "11–60") || !strings.Contains(ev.Data.Message, "E31") {
				t.Errorf("event %d data: got %+v, want a warning naming E31 11–60", i, ev.Data)
			}
			deepEqual(t, "payload", ev.Data.Payload, payload)
		}
		if !strings.Contains(evs[0].Data.Message, "50 numbers left") || !strings.Contains(evs[1].Data.Message, "2027-01-15") {
			t.Errorf("messages: got %q, %q; want the numbers left and the expiry", evs[0].Data.Message, evs[1].Data.Message)
		}
		// Another range is warned on its own.
		if ok, err := e.s.WarnSequence(ctx, other, sello.SequenceWarningLow, now); !ok || err != nil {
			t.Errorf("warn the other: got %v, %v; want true", ok, err)
		}
	})
	t.Run("ErrWarnUnknown", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		s := &sello.Sequence{ID: sello.NewID(), TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 1, To: 10}
		_, err := e.s.WarnSequence(t.Context(), s, sello.SequenceWarningLow, e.clock.Peek())
		wantError(t, err, sello.CodeNotFound, s.ID)
		if evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, 0); len(evs) != 0 {
			t.Errorf("events: got %d, want none", len(evs))
		}
	})
	t.Run("ErrWarningUnknown", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		s := MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
		_, err := e.s.WarnSequence(t.Context(), s, "empty", e.clock.Peek())
		wantError(t, err, sello.CodeInvalidRequest, "empty")
	})
}

// testSequenceWarningIsolation checks that tenant tenantID in en (another
// tenant or environment than s's) cannot warn about s, nor spend its
// warnings.
func testSequenceWarningIsolation(t *testing.T, e env, s *sello.Sequence, tenantID string, en sello.Environment) {
	ctx := t.Context()
	now := e.clock.Peek()
	other := *s
	other.TenantID, other.Environment = tenantID, en
	for _, w := range []sello.SequenceWarning{sello.SequenceWarningLow, sello.SequenceWarningExpiring} {
		_, err := e.s.WarnSequence(ctx, &other, w, now)
		wantError(t, err, sello.CodeNotFound, s.ID)
	}
	for _, ev := range mustEvents(t, e.s, s.TenantID, s.Environment, 0) {
		if ev.Type == sello.EventSequenceLow || ev.Type == sello.EventSequenceExpiring {
			t.Errorf("%s written: %+v", ev.Type, ev)
		}
	}
	// The owner's warning was not spent by the other calls.
	if ok, err := e.s.WarnSequence(ctx, s, sello.SequenceWarningLow, now); !ok || err != nil {
		t.Errorf("the owner's warning: got %v, %v; want true", ok, err)
	}
}
