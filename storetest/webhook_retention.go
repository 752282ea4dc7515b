package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testWebhookRetention(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	done := w.emit(t, sello.EnvTest)   // delivered: deleted with its event
	failed := w.emit(t, sello.EnvTest) // failed: deleted too
	open_ := w.emit(t, sello.EnvTest)  // still pending: kept
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		switch d.EventID {
		case done.ID:
			mustRecord(t, w.s, attempt(d, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
		case failed.ID:
			mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
		}
	}
	test, err := w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, ep.ID, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, w.s, attempt(test, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
	noHooks := MustCreateTenant(t, w.s)
	MustAddSequence(t, w.s, noHooks.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	MustCreateDocument(t, w.s, newDoc(noHooks.ID, sello.EnvTest, sello.TypeCreditoFiscal))

	w.clock.Add(sello.EventRetention)
	cutoff := w.clock.Peek()
	w.clock.Add(time.Hour)
	recent := w.emit(t, sello.EnvTest)

	n, err := w.s.DeleteEventsBefore(ctx, cutoff)
	if err != nil || n != 3 {
		t.Fatalf("DeleteEventsBefore: got %d, %v; want 3 (two of the tenant's, one of the other)", n, err)
	}
	var ids []string
	for _, ev := range mustEvents(t, w.s, w.tn.ID, sello.EnvTest, 2) {
		ids = append(ids, ev.ID)
	}
	deepEqual(t, "events kept", ids, []string{open_.ID, recent.ID})
	if got := mustEvents(t, w.s, noHooks.ID, sello.EnvTest, 0); len(got) != 0 {
		t.Errorf("other tenant's events: got %d, want none", len(got))
	}
	var kept []string
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		kept = append(kept, d.EventID)
	}
	slices.Sort(kept)
	want := []string{open_.ID, recent.ID}
	slices.Sort(want)
	deepEqual(t, "deliveries kept (by event)", kept, want)
	_, err = w.s.FindWebhookDelivery(ctx, w.tn.ID, test.ID)
	wantError(t, err, sello.CodeNotFound)
	// The kept delivery still works.
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.EventID == open_.ID {
			if work, err := w.s.FindWebhookWork(ctx, d.ID); err != nil || work.Event.ID != open_.ID {
				t.Errorf("work of the kept delivery: %v, %v", work, err)
			}
			mustRecord(t, w.s, attempt(d, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
		}
	}
	// Once final, the next pass deletes it.
	if n, err := w.s.DeleteEventsBefore(ctx, cutoff); n != 1 || err != nil {
		t.Errorf("second pass: got %d, %v; want 1", n, err)
	}
	if n, err := w.s.DeleteEventsBefore(ctx, cutoff); n != 0 || err != nil {
		t.Errorf("third pass: got %d, %v; want 0", n, err)
	}
}
