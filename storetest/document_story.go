package storetest

import (
	"testing"

	"github.com/sello-do/sello"
)

// testDocumentStory: a document's events (FindDocumentEvents) and their
// webhook deliveries (FindEventWebhookDeliveries), which the portal's
// document page shows beside its status history.
func testDocumentStory(t *testing.T, open Open) {
	e := newEnv(t, open)
	ctx := t.Context()
	tn := MustCreateTenant(t, e.s)
	other := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
	MustAddSequence(t, e.s, tn.ID, sello.EnvCert, sello.TypeCreditoFiscal, 1, 100)
	MustAddSequence(t, e.s, other.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
	ep := MustCreateWebhookEndpoint(t, e.s, tn.ID, sello.EnvTest)
	MustCreateWebhookEndpoint(t, e.s, other.ID, sello.EnvTest)

	doc := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
	neighbour := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
	elsewhere := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvCert, sello.TypeCreditoFiscal))
	stranger := MustCreateDocument(t, e.s, newDoc(other.ID, sello.EnvTest, sello.TypeCreditoFiscal))
	update := func(d *sello.Document, ch sello.DocumentChange) {
		t.Helper()
		if _, err := e.s.UpdateDocument(ctx, d.TenantID, d.Environment, d.ID, ch); err != nil {
			t.Fatalf("UpdateDocument %s: %v", d.ENCF, err)
		}
	}
	update(doc, sello.DocumentChange{Status: sello.StatusSigned, EventType: sello.EventECFSigned, Message: "signed"})
	update(neighbour, sello.DocumentChange{Status: sello.StatusSigned, EventType: sello.EventECFSigned})
	update(doc, sello.DocumentChange{Reason: "a step without an event"})
	update(doc, sello.DocumentChange{Status: sello.StatusAccepted, EventType: sello.EventECFAccepted, Severity: "info", Message: "accepted"})
	update(elsewhere, sello.DocumentChange{Status: sello.StatusSigned, EventType: sello.EventECFSigned})
	update(stranger, sello.DocumentChange{Status: sello.StatusSigned, EventType: sello.EventECFSigned})

	t.Run("Events", func(t *testing.T) {
		evs, err := e.s.FindDocumentEvents(ctx, tn.ID, sello.EnvTest, doc.ID)
		if err != nil {
			t.Fatalf("FindDocumentEvents: %v", err)
		}
		var types []sello.EventType
		for _, ev := range evs {
			types = append(types, ev.Type)
			if ev.Document == nil || ev.Document.ID != doc.ID || ev.TenantID != tn.ID || ev.Environment != sello.EnvTest {
				t.Errorf("event %s %s: not of the document: %+v", ev.ID, ev.Type, ev)
			}
		}
		deepEqual(t, "types", types, []sello.EventType{sello.EventECFQueued, sello.EventECFSigned, sello.EventECFAccepted})
		if len(evs) == 3 && (evs[2].Data.Message != "accepted" || evs[2].Document.Status != sello.StatusAccepted) {
			t.Errorf("accepted event: %+v %+v", evs[2].Data, evs[2].Document)
		}
		for i := 1; i < len(evs); i++ {
			if !evs[i-1].Pos.Less(evs[i].Pos) {
				t.Errorf("events out of the feed's order: %v then %v", evs[i-1].Pos, evs[i].Pos)
			}
		}
	})
	t.Run("EventsIsolated", func(t *testing.T) {
		for _, tt := range []struct {
			name     string
			tenantID string
			env      sello.Environment
			id       string
		}{
			{"OtherEnvironment", tn.ID, sello.EnvCert, doc.ID},
			{"OtherTenant", other.ID, sello.EnvTest, doc.ID},
			{"StrangersDocument", tn.ID, sello.EnvTest, stranger.ID},
			{"Unknown", tn.ID, sello.EnvTest, sello.NewID()},
		} {
			evs, err := e.s.FindDocumentEvents(ctx, tt.tenantID, tt.env, tt.id)
			if err != nil || len(evs) != 0 {
				t.Errorf("%s: got %d events, %v; want none", tt.name, len(evs), err)
			}
		}
	})
	t.Run("Deliveries", func(t *testing.T) {
		evs, err := e.s.FindDocumentEvents(ctx, tn.ID, sello.EnvTest, doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(evs))
		for i, ev := range evs {
			ids[i] = ev.ID
		}
		ds, err := e.s.FindEventWebhookDeliveries(ctx, tn.ID, ids)
		if err != nil {
			t.Fatalf("FindEventWebhookDeliveries: %v", err)
		}
		if len(ds) != len(evs) {
			t.Fatalf("got %d deliveries, want one per event (%d)", len(ds), len(evs))
		}
		for i, d := range ds {
			if d.EventID != ids[i] || d.EndpointID != ep.ID || d.TenantID != tn.ID {
				t.Errorf("delivery %d: event %s endpoint %s, want event %s endpoint %s", i, d.EventID, d.EndpointID, ids[i], ep.ID)
			}
		}
		replay, err := e.s.ReplayWebhookDelivery(ctx, tn.ID, ds[0].ID, e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		again, err := e.s.FindEventWebhookDeliveries(ctx, tn.ID, ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != len(ds)+1 || again[len(again)-1].ID != replay.ID || again[len(again)-1].ReplayOf != ds[0].ID {
			t.Errorf("after a replay: got %d deliveries, want the replay last", len(again))
		}
		if got, err := e.s.FindEventWebhookDeliveries(ctx, other.ID, ids); err != nil || len(got) != 0 {
			t.Errorf("another tenant: got %d deliveries, %v; want none", len(got), err)
		}
		if got, err := e.s.FindEventWebhookDeliveries(ctx, tn.ID, nil); err != nil || len(got) != 0 {
			t.Errorf("no events: got %d deliveries, %v; want none", len(got), err)
		}
	})
}
