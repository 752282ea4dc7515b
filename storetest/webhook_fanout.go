package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testWebhookFanOut(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		ctx := t.Context()
		all := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		queued := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest, sello.EventECFQueued, sello.EventECFSigned)
		signed := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest, sello.EventECFSigned)
		paused := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, paused.ID); err != nil {
			t.Fatalf("PauseWebhookEndpoint: %v", err)
		}
		disabled := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, disabled.ID, "test", w.clock.Now()); err != nil {
			t.Fatalf("DisableWebhookEndpoint: %v", err)
		}
		cert := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvCert)
		other := MustCreateTenant(t, w.s)
		otherEP := MustCreateWebhookEndpoint(t, w.s, other.ID, sello.EnvTest)
		before := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) // disabled event's

		ev := w.emit(t, sello.EnvTest)
		var ds []*sello.WebhookDelivery
		for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
			if d.EventID == ev.ID {
				ds = append(ds, d)
			}
		}
		if len(ds) != 3 {
			t.Fatalf("deliveries of the event: got %d, want 3 (all, queued, paused)", len(ds))
		}
		for _, tc := range []struct {
			ep     *sello.WebhookEndpoint
			status sello.WebhookDeliveryStatus
		}{{all, sello.WebhookPending}, {queued, sello.WebhookPending}, {paused, sello.WebhookHeld}} {
			got := deliveriesTo(ds, tc.ep.ID)
			if len(got) != 1 {
				t.Fatalf("deliveries to %s: got %d, want 1", tc.ep.ID, len(got))
			}
			d := got[0]
			var next *time.Time
			if tc.status == sello.WebhookPending {
				next = &ev.CreatedAt
			}
			want := &sello.WebhookDelivery{
				ID: d.ID, EndpointID: tc.ep.ID, TenantID: w.tn.ID, Environment: sello.EnvTest, EventID: ev.ID,
				EventType: sello.EventECFQueued, Status: tc.status, NextAttemptAt: next, Trigger: sello.WebhookTriggerEvent,
				CreatedAt: ev.CreatedAt, UpdatedAt: ev.CreatedAt,
			}
			deepEqual(t, "delivery to "+string(tc.status), d, want)
		}
		for _, ep := range []*sello.WebhookEndpoint{signed, disabled} {
			if got := deliveriesTo(ds, ep.ID); len(got) != 0 {
				t.Errorf("deliveries to an endpoint that must get none: got %d", len(got))
			}
		}
		if got := mustDeliveries(t, w.s, w.tn.ID, sello.EnvCert, sello.WebhookDeliveryFilter{}); len(deliveriesTo(got, cert.ID)) != 0 {
			t.Errorf("deliveries in CerteCF: got %d, want none", len(got))
		}
		if got := mustDeliveries(t, w.s, other.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(deliveriesTo(got, otherEP.ID)) != 0 {
			t.Errorf("deliveries to another tenant: got %d, want none", len(got))
		}
		// Exactly one job per pending delivery, the disabled event's included.
		var pending []*sello.WebhookDelivery
		for _, d := range append(before, ds...) {
			if d.Status == sello.WebhookPending {
				pending = append(pending, d)
			}
		}
		deepEqual(t, "webhook jobs", mustWebhookJobs(t, w.r), deliveryIDs(pending))

		// A lifecycle event fans out too: the signed event reaches all,
		// queued and signed.
		doc, err := w.s.FindDocumentByID(ctx, w.tn.ID, sello.EnvTest, ev.Document.ID)
		if err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, w.s, doc, signChange())
		var signedTo []string
		for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
			if d.EventType == sello.EventECFSigned {
				signedTo = append(signedTo, d.EndpointID)
			}
		}
		slices.Sort(signedTo)
		want := []string{all.ID, queued.ID, signed.ID, paused.ID}
		slices.Sort(want)
		deepEqual(t, "endpoints of ecf.signed", signedTo, want)
	})
	t.Run("NoEndpoints", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		w.emit(t, sello.EnvTest)
		if got := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(got) != 0 {
			t.Errorf("deliveries: got %d, want none", len(got))
		}
		if got := mustWebhookJobs(t, w.r); len(got) != 0 {
			t.Errorf("webhook jobs: got %d, want none", len(got))
		}
	})
	t.Run("RolledBack", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		nd := newDoc(w.tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.ENCF = encf(sello.TypeCreditoFiscal, 1)
		MustCreateDocument(t, w.s, nd)
		if _, _, err := w.s.CreateDocument(t.Context(), nd); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("create a used e-NCF: got %v, want CONFLICT", err)
		}
		if got := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(got) != 1 {
			t.Errorf("deliveries: got %d, want 1 (the failed create wrote none)", len(got))
		}
		if got := mustWebhookJobs(t, w.r); len(got) != 1 {
			t.Errorf("webhook jobs: got %d, want 1", len(got))
		}
	})
}
