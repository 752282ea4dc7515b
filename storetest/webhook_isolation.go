package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testWebhookIsolation calls every tenant-scoped webhook method with
// another tenant's id and checks it neither sees nor changes anything.
func testWebhookIsolation(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	d := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})[0]
	mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
	b := MustCreateTenant(t, w.s)
	now := w.clock.Peek()
	beforeEP, beforeD := mustEndpoint(t, w.s, ep), mustDelivery(t, w.s, w.tn.ID, d.ID)
	jobs := mustWebhookJobs(t, w.r)

	_, err := w.s.FindWebhookEndpoint(ctx, b.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	if got, err := w.s.FindWebhookEndpoints(ctx, b.ID, sello.EnvTest); err != nil || len(got) != 0 {
		t.Errorf("FindWebhookEndpoints: got %d, %v; want none", len(got), err)
	}
	wantError(t, w.s.PauseWebhookEndpoint(ctx, b.ID, ep.ID), sello.CodeNotFound, ep.ID)
	_, err = w.s.ResumeWebhookEndpoint(ctx, b.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	s, _ := sello.NewWebhookSecret(webhookKey, ep.ID, secretN(5))
	wantError(t, w.s.RotateWebhookSecret(ctx, b.ID, ep.ID, s, 0, now), sello.CodeNotFound, ep.ID)
	_, err = w.s.DisableWebhookEndpoint(ctx, b.ID, ep.ID, "x", now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.FindWebhookDelivery(ctx, b.ID, d.ID)
	wantError(t, err, sello.CodeNotFound, d.ID)
	if got, err := w.s.ListWebhookDeliveries(ctx, b.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); err != nil || len(got) != 0 {
		t.Errorf("ListWebhookDeliveries: got %d, %v; want none", len(got), err)
	}
	_, err = w.s.ReplayWebhookDelivery(ctx, b.ID, d.ID, now)
	wantError(t, err, sello.CodeNotFound, d.ID)
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, b.ID, sello.EnvTest, "", time.Time{}, now); n != 0 || err != nil {
		t.Errorf("ReplayFailedWebhookDeliveries: got %d, %v; want 0", n, err)
	}
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, b.ID, sello.EnvTest, ep.ID, time.Time{}, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.CreateTestWebhookDelivery(ctx, b.ID, ep.ID, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	wantError(t, w.s.DeleteWebhookEndpoint(ctx, b.ID, ep.ID, now), sello.CodeNotFound, ep.ID)
	// B's own endpoint does not receive A's events.
	MustCreateWebhookEndpoint(t, w.s, b.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	if got, _ := w.s.ListWebhookDeliveries(ctx, b.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(got) != 0 {
		t.Errorf("B's deliveries after A's event: got %d, want none", len(got))
	}

	deepEqual(t, "A's endpoint", mustEndpoint(t, w.s, ep), beforeEP)
	deepEqual(t, "A's delivery", mustDelivery(t, w.s, w.tn.ID, d.ID), beforeD)
	if got := mustWebhookJobs(t, w.r); len(got) != len(jobs)+1 {
		t.Errorf("jobs: got %d, want %d (only A's new event's)", len(got), len(jobs)+1)
	}
}
