package storetest

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testWebhookPauseResume(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	first := w.emit(t, sello.EnvTest)
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatalf("PauseWebhookEndpoint: %v", err)
	}
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatalf("PauseWebhookEndpoint again: %v", err)
	}
	if got := mustEndpoint(t, w.s, ep); got.Status != sello.WebhookEndpointPaused || !got.UpdatedAt.After(ep.UpdatedAt) {
		t.Errorf("paused endpoint: status %q, updated %v", got.Status, got.UpdatedAt)
	}
	w.emit(t, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	ds := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	var held, pending []*sello.WebhookDelivery
	for _, d := range ds {
		switch d.Status {
		case sello.WebhookHeld:
			held = append(held, d)
		case sello.WebhookPending:
			pending = append(pending, d)
		}
	}
	if len(held) != 2 || len(pending) != 1 || pending[0].EventID != first.ID {
		t.Fatalf("deliveries: got %d held, %d pending; want 2 held and the first event's pending", len(held), len(pending))
	}
	deepEqual(t, "jobs while paused", mustWebhookJobs(t, w.r), deliveryIDs(pending))

	// The job of the pending delivery finds the endpoint paused and holds it.
	if ok, err := w.s.HoldWebhookDelivery(ctx, pending[0].ID); !ok || err != nil {
		t.Fatalf("HoldWebhookDelivery: got %v, %v; want true", ok, err)
	}
	if ok, err := w.s.HoldWebhookDelivery(ctx, pending[0].ID); ok || err != nil {
		t.Errorf("HoldWebhookDelivery again: got %v, %v; want false", ok, err)
	}
	if d := mustDelivery(t, w.s, w.tn.ID, pending[0].ID); d.Status != sello.WebhookHeld || d.NextAttemptAt != nil {
		t.Errorf("held delivery: status %q, next %v", d.Status, d.NextAttemptAt)
	}
	_, err := w.s.HoldWebhookDelivery(ctx, "no-such-delivery")
	wantError(t, err, sello.CodeNotFound, "no-such-delivery")

	n, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID)
	if err != nil || n != 3 {
		t.Fatalf("ResumeWebhookEndpoint: got %d, %v; want 3", n, err)
	}
	ds = mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	for _, d := range ds {
		if d.Status != sello.WebhookPending || d.NextAttemptAt == nil {
			t.Errorf("delivery after resume: status %q, next %v; want pending and due", d.Status, d.NextAttemptAt)
		}
	}
	// The first delivery's job was inserted twice: at fan-out (its job then
	// held it and ended) and at resume.
	want := append(deliveryIDs(ds), pending[0].ID)
	slices.Sort(want)
	deepEqual(t, "jobs after resume", mustWebhookJobs(t, w.r), want)
	if n, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID); n != 0 || err != nil {
		t.Errorf("resume an active endpoint: got %d, %v; want 0", n, err)
	}
	if got := mustEndpoint(t, w.s, ep); got.Status != sello.WebhookEndpointActive {
		t.Errorf("status after resume: got %q", got.Status)
	}
	// An active endpoint's pending delivery is not held.
	if ok, err := w.s.HoldWebhookDelivery(ctx, ds[0].ID); ok || err != nil {
		t.Errorf("hold a delivery of an active endpoint: got %v, %v; want false", ok, err)
	}
	_, err = w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint")
	wantError(t, err, sello.CodeNotFound, "no-such-endpoint")
	wantError(t, w.s.PauseWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint"), sello.CodeNotFound, "no-such-endpoint")
}

// testWebhookPauseResumeConcurrent creates documents while the endpoint is
// paused and resumed: once it is left active, no delivery may stay held,
// every event has exactly one delivery, and every pending delivery a job.
func testWebhookPauseResumeConcurrent(t *testing.T, open Open) {
	const producers, each, toggles = 4, 10, 10
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	var wg sync.WaitGroup
	for range producers {
		wg.Go(func() {
			for range each {
				if _, _, err := w.s.CreateDocument(ctx, newDoc(w.tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)); err != nil {
					t.Errorf("CreateDocument: %v", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range toggles {
			if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
				t.Errorf("PauseWebhookEndpoint: %v", err)
				return
			}
			if _, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
				t.Errorf("ResumeWebhookEndpoint: %v", err)
				return
			}
		}
	})
	wg.Wait()
	ds := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	if len(ds) != producers*each {
		t.Fatalf("deliveries: got %d, want %d", len(ds), producers*each)
	}
	jobs := mustWebhookJobs(t, w.r)
	for _, d := range ds {
		if d.Status != sello.WebhookPending {
			t.Errorf("delivery %s: status %q, want pending (the endpoint is active)", d.ID, d.Status)
		} else if _, ok := slices.BinarySearch(jobs, d.ID); !ok {
			t.Errorf("pending delivery %s has no job", d.ID)
		}
	}
}

func testWebhookDisable(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	watcher := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest, sello.EventWebhookEndpointDisabled)
	w.emit(t, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	ds := deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)
	mustRecord(t, w.s, attempt(ds[1], w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	w.emit(t, sello.EnvTest) // held; emit waited for the feed
	eventsBefore := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest, 0))

	now := w.clock.Peek().Truncate(time.Millisecond)
	ok, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "Failing for 5 days.", now)
	if !ok || err != nil {
		t.Fatalf("DisableWebhookEndpoint: got %v, %v; want true", ok, err)
	}
	got := mustEndpoint(t, w.s, ep)
	if got.Status != sello.WebhookEndpointDisabled || got.DisabledReason != "Failing for 5 days." || !got.UpdatedAt.Equal(now) {
		t.Errorf("endpoint: status %q, reason %q, updated %v", got.Status, got.DisabledReason, got.UpdatedAt)
	}
	for _, d := range deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID) {
		want := sello.WebhookFailed
		if d.ID == ds[1].ID {
			want = sello.WebhookSucceeded
		}
		if d.Status != want || d.NextAttemptAt != nil {
			t.Errorf("delivery %s: status %q, next %v; want %q", d.ID, d.Status, d.NextAttemptAt, want)
		}
		if want == sello.WebhookFailed && !strings.Contains(d.LastError, "Failing for 5 days.") {
			t.Errorf("delivery %s: LastError %q, want the reason", d.ID, d.LastError)
		}
	}
	evs := mustEvents(t, w.s, w.tn.ID, sello.EnvTest, eventsBefore+1)
	if len(evs) != eventsBefore+1 {
		t.Fatalf("events: got %d, want %d", len(evs), eventsBefore+1)
	}
	ev := evs[len(evs)-1]
	if ev.Type != sello.EventWebhookEndpointDisabled || ev.Document != nil || !ev.CreatedAt.Equal(now) ||
		ev.Data.Severity != "warning" || !strings.Contains(ev.Data.Message, ep.URL) {
		t.Errorf("event: %+v", ev)
	}
	deepEqual(t, "payload", ev.Data.Payload, map[string]any{"endpointId": ep.ID, "url": ep.URL, "reason": "Failing for 5 days."})
	// The event fans out to the tenant's other endpoints, not to the one disabled.
	var toWatcher []*sello.WebhookDelivery
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.EventID == ev.ID {
			toWatcher = append(toWatcher, d)
		}
	}
	if len(toWatcher) != 1 || toWatcher[0].EndpointID != watcher.ID || toWatcher[0].Status != sello.WebhookPending {
		t.Errorf("deliveries of the disabled event: got %+v, want one pending to the watcher", toWatcher)
	}

	if ok, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "again", now); ok || err != nil {
		t.Errorf("disable again: got %v, %v; want false", ok, err)
	}
	if got := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest, eventsBefore+1)); got != eventsBefore+1 {
		t.Errorf("events after disabling again: got %d, want %d", got, eventsBefore+1)
	}
	wantError(t, w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID), sello.CodeConflict, "disabled")
	// A disabled endpoint gets nothing.
	n := len(deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID))
	w.emit(t, sello.EnvTest)
	if got := len(deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)); got != n {
		t.Errorf("deliveries to the disabled endpoint: got %d, want %d", got, n)
	}
	// Resuming a disabled endpoint makes it active again.
	if n, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID); n != 0 || err != nil {
		t.Errorf("resume the disabled endpoint: got %d, %v; want 0", n, err)
	}
	if got := mustEndpoint(t, w.s, ep); got.Status != sello.WebhookEndpointActive || got.DisabledReason != "" || got.FailingSince != nil {
		t.Errorf("endpoint after resume: %+v", got)
	}
	_, err = w.s.DisableWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint", "x", now)
	wantError(t, err, sello.CodeNotFound, "no-such-endpoint")
}

// testWebhookDelete: a deleted endpoint is gone for every method that
// takes its id and for the list, gets no more deliveries, and its pending
// and held deliveries fail; its log stays, and a job already queued finds
// it disabled.
func testWebhookDelete(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	other := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	done := deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)[0]
	mustRecord(t, w.s, attempt(done, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
	w.emit(t, sello.EnvTest) // pending
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	w.emit(t, sello.EnvTest) // held; emit waited for the feed
	eventsBefore := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest, 0))
	now := w.clock.Peek().Truncate(time.Millisecond)

	if err := w.s.DeleteWebhookEndpoint(ctx, w.tn.ID, ep.ID, now); err != nil {
		t.Fatalf("DeleteWebhookEndpoint: %v", err)
	}
	_, err := w.s.FindWebhookEndpoint(ctx, w.tn.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.FindWebhookEndpointByID(ctx, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	if got, err := w.s.FindWebhookEndpoints(ctx, w.tn.ID, sello.EnvTest); err != nil || len(got) != 1 || got[0].ID != other.ID {
		t.Errorf("FindWebhookEndpoints after delete: got %v, %v; want only the other endpoint", got, err)
	}
	ds := deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)
	if len(ds) != 3 {
		t.Fatalf("deliveries of the deleted endpoint: got %d, want 3 (the log stays)", len(ds))
	}
	for _, d := range ds {
		switch {
		case d.ID == done.ID && d.Status != sello.WebhookSucceeded:
			t.Errorf("the succeeded delivery became %q", d.Status)
		case d.ID != done.ID && (d.Status != sello.WebhookFailed || d.LastError != sello.WebhookEndpointDeleted || d.NextAttemptAt != nil):
			t.Errorf("delivery %s: status %q, last error %q, next %v; want failed by the deletion", d.ID, d.Status, d.LastError, d.NextAttemptAt)
		}
	}
	// A job already queued reads the delivery, and the endpoint disabled.
	work, err := w.s.FindWebhookWork(ctx, ds[0].ID)
	if err != nil || work.Endpoint.ID != ep.ID || work.Endpoint.Status != sello.WebhookEndpointDisabled {
		t.Fatalf("FindWebhookWork of a deleted endpoint's delivery: %+v, %v; want it, disabled", work, err)
	}
	if got := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest, eventsBefore)); got != eventsBefore {
		t.Errorf("events after delete: got %d, want %d (deleting writes none)", got, eventsBefore)
	}
	// No more deliveries; the other endpoint still gets its own.
	ev := w.emit(t, sello.EnvTest)
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.EventID == ev.ID && d.EndpointID != other.ID {
			t.Errorf("delivery %s of a new event to endpoint %s", d.ID, d.EndpointID)
		}
	}
	if len(deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), other.ID)) != 4 {
		t.Errorf("the other endpoint lost deliveries")
	}
	// Every method that takes its id answers NOT_FOUND.
	wantError(t, w.s.DeleteWebhookEndpoint(ctx, w.tn.ID, ep.ID, now), sello.CodeNotFound, ep.ID)
	wantError(t, w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID), sello.CodeNotFound, ep.ID)
	_, err = w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	s, _ := sello.NewWebhookSecret(webhookKey, ep.ID, secretN(5))
	wantError(t, w.s.RotateWebhookSecret(ctx, w.tn.ID, ep.ID, s, 0, now), sello.CodeNotFound, ep.ID)
	_, err = w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "x", now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, ep.ID, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.ReplayWebhookDelivery(ctx, w.tn.ID, done.ID, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, ep.ID, time.Time{}, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", time.Time{}, now); n != 0 || err != nil {
		t.Errorf("ReplayFailedWebhookDeliveries: got %d, %v; want 0 (the deleted endpoint's are skipped)", n, err)
	}
	wantError(t, w.s.DeleteWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint", now), sello.CodeNotFound, "no-such-endpoint")
}
