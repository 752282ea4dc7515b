package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testWebhookReplay(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	orig := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})[0]
	mustRecord(t, w.s, attempt(orig, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})

	now := w.clock.Peek().Truncate(time.Microsecond)
	d, err := w.s.ReplayWebhookDelivery(ctx, w.tn.ID, orig.ID, now)
	if err != nil {
		t.Fatalf("ReplayWebhookDelivery: %v", err)
	}
	want := &sello.WebhookDelivery{
		ID: d.ID, EndpointID: ep.ID, TenantID: w.tn.ID, Environment: sello.EnvTest, EventID: orig.EventID,
		EventType: orig.EventType, Status: sello.WebhookPending, NextAttemptAt: &now, Trigger: sello.WebhookTriggerReplay,
		ReplayOf: orig.ID, CreatedAt: now, UpdatedAt: now,
	}
	deepEqual(t, "replay", d, want)
	deepEqual(t, "stored replay", mustDelivery(t, w.s, w.tn.ID, d.ID), &sello.WebhookDelivery{
		ID: d.ID, EndpointID: ep.ID, TenantID: w.tn.ID, Environment: sello.EnvTest, EventID: orig.EventID,
		EventType: orig.EventType, Status: sello.WebhookPending, NextAttemptAt: &now, Trigger: sello.WebhookTriggerReplay,
		ReplayOf: orig.ID, CreatedAt: now, UpdatedAt: now, AttemptLog: []*sello.WebhookAttempt{},
	})
	if got := mustDelivery(t, w.s, w.tn.ID, orig.ID); got.Status != sello.WebhookFailed || got.Attempts != 1 {
		t.Errorf("original after replay: %+v; want unchanged", got)
	}
	deepEqual(t, "jobs", mustWebhookJobs(t, w.r), deliveryIDs([]*sello.WebhookDelivery{orig, d}))
	work, err := w.s.FindWebhookWork(ctx, d.ID)
	if err != nil {
		t.Fatalf("FindWebhookWork: %v", err)
	}
	if work.Event.ID != orig.EventID || work.Endpoint.ID != ep.ID {
		t.Errorf("work of the replay: event %s, endpoint %s", work.Event.ID, work.Endpoint.ID)
	}

	// Paused: the replay is held, without a job.
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	held, err := w.s.ReplayWebhookDelivery(ctx, w.tn.ID, orig.ID, now)
	if err != nil || held.Status != sello.WebhookHeld || held.NextAttemptAt != nil {
		t.Errorf("replay to a paused endpoint: got %+v, %v; want held", held, err)
	}
	if got := mustWebhookJobs(t, w.r); len(got) != 2 {
		t.Errorf("jobs: got %d, want 2", len(got))
	}
	// Disabled: refused.
	if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "x", now); err != nil {
		t.Fatal(err)
	}
	_, err = w.s.ReplayWebhookDelivery(ctx, w.tn.ID, orig.ID, now)
	wantError(t, err, sello.CodeConflict, ep.ID)
	_, err = w.s.ReplayWebhookDelivery(ctx, w.tn.ID, "no-such-delivery", now)
	wantError(t, err, sello.CodeNotFound, "no-such-delivery")
}

func testWebhookReplayFailed(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	a := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	b := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	fail := func() {
		t.Helper()
		for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
			if d.Status == sello.WebhookPending {
				mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
			}
		}
	}
	w.emit(t, sello.EnvTest) // before since: not replayed
	fail()
	w.clock.Add(time.Hour)
	since := w.clock.Peek()
	w.emit(t, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	fail()
	w.emit(t, sello.EnvTest) // pending: not replayed
	jobs := len(mustWebhookJobs(t, w.r))

	now := w.clock.Peek()
	n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, a.ID, since, now)
	if err != nil || n != 2 {
		t.Fatalf("replay the failed deliveries to A: got %d, %v; want 2", n, err)
	}
	n, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", since, now)
	if err != nil || n != 2 {
		t.Fatalf("replay all failed deliveries: got %d, %v; want 2 (B's; A's were replayed)", n, err)
	}
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", since, now); n != 0 || err != nil {
		t.Errorf("replay again: got %d, %v; want 0", n, err)
	}
	replays := 0
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.Trigger != sello.WebhookTriggerReplay {
			continue
		}
		replays++
		orig := mustDelivery(t, w.s, w.tn.ID, d.ReplayOf)
		if orig.Status != sello.WebhookFailed || orig.CreatedAt.Before(since) || d.EventID != orig.EventID ||
			d.EndpointID != orig.EndpointID || d.Status != sello.WebhookPending {
			t.Errorf("replay %+v of %+v", d, orig)
		}
	}
	if replays != 4 || len(mustWebhookJobs(t, w.r)) != jobs+4 {
		t.Errorf("replays: got %d, jobs %d; want 4 replays with a job each", replays, len(mustWebhookJobs(t, w.r))-jobs)
	}
	// A failed replay is replayed in its turn.
	fail()
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, b.ID, since, now); n != 3 || err != nil {
		t.Errorf("replay B's failed again: got %d, %v; want 3 (2 replays, 1 newer delivery)", n, err)
	}
	if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, a.ID, "x", now); err != nil {
		t.Fatal(err)
	}
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, a.ID, since, now)
	wantError(t, err, sello.CodeConflict, a.ID)
	// Replaying everything since the start skips the disabled endpoint's
	// (its first failed delivery was never replayed): only B's first.
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", time.Time{}, now); err != nil || n != 1 {
		t.Errorf("replay all with A disabled: got %d, %v; want 1", n, err)
	}
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "no-such-endpoint", since, now)
	wantError(t, err, sello.CodeNotFound, "no-such-endpoint")
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvCert, b.ID, since, now)
	wantError(t, err, sello.CodeNotFound, b.ID)
}
