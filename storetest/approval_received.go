package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// mustAcceptedDocument creates a type-31 document of tenantID in e and
// moves it to accepted.
func mustAcceptedDocument(tb testing.TB, s sello.Store, tenantID string, e sello.Environment) *sello.Document {
	tb.Helper()
	MustAddSequence(tb, s, tenantID, e, sello.TypeCreditoFiscal, 1, 100)
	doc := MustCreateDocument(tb, s, newDoc(tenantID, e, sello.TypeCreditoFiscal))
	doc, err := s.UpdateDocument(tb.Context(), tenantID, e, doc.ID, sello.DocumentChange{Status: sello.StatusAccepted})
	if err != nil {
		tb.Fatalf("UpdateDocument to accepted: %v", err)
	}
	return doc
}

// approvalOf is the buyer's approval (status, reason) of doc, matching it.
func approvalOf(tn *sello.Tenant, doc *sello.Document, status, reason string) *sello.ReceivedApproval {
	return &sello.ReceivedApproval{
		TenantID: tn.ID, Environment: doc.Environment, IssuerRNC: tn.RNC, ENCF: doc.ENCF,
		IssueDate: doc.IssueDate, Total: doc.Total, BuyerRNC: doc.BuyerRNC,
		Status: status, Reason: reason, DecidedAt: time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC),
	}
}

func testApproval(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		got, changed, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalRejected, "Precio incorrecto"))
		if err != nil || !changed {
			t.Fatalf("ReceiveCommercialApproval: changed %v, %v", changed, err)
		}
		a := got.CommercialApproval
		if a == nil || a.Status != sello.ApprovalRejected || a.Reason != "Precio incorrecto" || a.BuyerRNC != doc.BuyerRNC ||
			a.ReceivedAt == nil || a.DecidedAt == nil || !a.DecidedAt.Equal(time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)) {
			t.Fatalf("commercial approval: got %+v", a)
		}
		found, err := e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "stored approval", found.CommercialApproval, a)
		if !found.UpdatedAt.Equal(got.UpdatedAt) || !found.UpdatedAt.After(doc.UpdatedAt) {
			t.Errorf("updatedAt: stored %v, returned %v, before %v", found.UpdatedAt, got.UpdatedAt, doc.UpdatedAt)
		}
		events := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApproval, Limit: 10}, AtLeast(1))
		if len(events) != 1 || events[0].Document.ID != doc.ID || events[0].Data.Payload["status"] != sello.ApprovalRejected ||
			events[0].Data.Payload["reason"] != "Precio incorrecto" || events[0].Data.Severity != "warning" {
			t.Fatalf("events: got %+v, want one %s of %s", events, sello.EventECFCommercialApproval, doc.ID)
		}
	})
	t.Run("Repeated", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		first, _, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalApproved, ""))
		if err != nil {
			t.Fatal(err)
		}
		again, changed, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalApproved, ""))
		if err != nil || changed {
			t.Fatalf("the same verdict again: changed %v, %v; want unchanged", changed, err)
		}
		deepEqual(t, "approval after the repeat", again.CommercialApproval, first.CommercialApproval)
		if events := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApproval, Limit: 10}, AtLeast(1)); len(events) != 1 {
			t.Fatalf("events: got %d; want 1", len(events))
		}
	})
	t.Run("ErrConflict", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		if _, _, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalApproved, "")); err != nil {
			t.Fatal(err)
		}
		_, _, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalRejected, "Mercancía dañada"))
		wantError(t, err, sello.CodeConflict, doc.ENCF, "approved", "cannot be changed")
		found, err := e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil || found.CommercialApproval.Status != sello.ApprovalApproved {
			t.Fatalf("after the refused change: %+v, %v", found.CommercialApproval, err)
		}
	})
	t.Run("ErrMismatch", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		a := approvalOf(tn, doc, sello.ApprovalApproved, "")
		a.Total, a.BuyerRNC = "1180.01", "101010101"
		_, _, err := e.s.ReceiveCommercialApproval(t.Context(), a)
		wantError(t, err, sello.CodeInvalidRequest, "MontoTotal 1180.01, not 1180.00", "RNCComprador 101010101")
		found, err := e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil || found.CommercialApproval != nil {
			t.Fatalf("after the refused approval: %+v, %v", found.CommercialApproval, err)
		}
	})
	t.Run("ErrNotAccepted", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
		doc := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
		_, _, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalApproved, ""))
		wantError(t, err, sello.CodeInvalidRequest, "queued_for_signing", "accepted")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		// Another tenant's document, or the same in another environment,
		// is not found.
		e := newEnv(t, open)
		tn, other := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		a := approvalOf(other, doc, sello.ApprovalApproved, "")
		_, _, err := e.s.ReceiveCommercialApproval(t.Context(), a)
		wantError(t, err, sello.CodeNotFound, doc.ENCF)
		a = approvalOf(tn, doc, sello.ApprovalApproved, "")
		a.Environment = sello.EnvCert
		_, _, err = e.s.ReceiveCommercialApproval(t.Context(), a)
		wantError(t, err, sello.CodeNotFound, doc.ENCF)
	})
}
