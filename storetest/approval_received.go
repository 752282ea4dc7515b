package storetest

import (
	"strings"
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

// buyerHolder is the serialNumber of the buyer's signing certificate in
// approvalOf; a stranger's is another.
const (
	buyerHolder    = "IDCDO-00100000001"
	strangerHolder = "IDCDO-40200000009"
)

// approvalOf is the buyer's approval (status, reason) of doc, matching it,
// signed by the buyer's certificate (buyerHolder).
func approvalOf(tn *sello.Tenant, doc *sello.Document, status, reason string) *sello.ReceivedApproval {
	return &sello.ReceivedApproval{
		TenantID: tn.ID, Environment: doc.Environment, IssuerRNC: tn.RNC, ENCF: doc.ENCF,
		IssueDate: doc.IssueDate, Total: doc.Total, BuyerRNC: doc.BuyerRNC,
		Status: status, Reason: reason, DecidedAt: time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC),
		Signer: testSigner(buyerHolder, true),
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
		deepEqual(t, "signer", a.Signer, testSigner(buyerHolder, true))
		if len(a.Verdicts) != 1 || a.Verdicts[0].Status != sello.ApprovalRejected || a.Verdicts[0].Signer.SerialNumber != buyerHolder {
			t.Fatalf("verdicts: got %+v, want the one", a.Verdicts)
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
	t.Run("ErrVerdictChanged", func(t *testing.T) {
		// The same holder's other verdict is refused, 400 (DGII's
		// contract has no 409).
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		if _, _, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalApproved, "")); err != nil {
			t.Fatal(err)
		}
		changed := approvalOf(tn, doc, sello.ApprovalRejected, "Mercancía dañada")
		changed.Signer.Fingerprint = "another certificate of the same holder"
		_, _, err := e.s.ReceiveCommercialApproval(t.Context(), changed)
		wantError(t, err, sello.CodeInvalidRequest, doc.ENCF, "approved", "cannot be changed")
		found, err := e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil || found.CommercialApproval.Status != sello.ApprovalApproved || len(found.CommercialApproval.Verdicts) != 1 {
			t.Fatalf("after the refused change: %+v, %v", found.CommercialApproval, err)
		}
	})
	t.Run("Disputed", func(t *testing.T) {
		// A stranger rejects first; the buyer's approval is not refused:
		// both are kept, the approval is disputed, with a warning.
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		forged := approvalOf(tn, doc, sello.ApprovalRejected, "Falsa")
		forged.Signer = testSigner(strangerHolder, false)
		if _, _, err := e.s.ReceiveCommercialApproval(t.Context(), forged); err != nil {
			t.Fatal(err)
		}
		got, changed, err := e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalApproved, ""))
		if err != nil || !changed {
			t.Fatalf("the buyer's verdict after a stranger's: changed %v, %v; want it kept", changed, err)
		}
		a := got.CommercialApproval
		if a.Status != sello.ApprovalDisputed || len(a.Verdicts) != 2 ||
			a.Verdicts[0].Signer.SerialNumber != strangerHolder || a.Verdicts[0].Status != sello.ApprovalRejected ||
			a.Verdicts[1].Signer.SerialNumber != buyerHolder || a.Verdicts[1].Status != sello.ApprovalApproved {
			t.Fatalf("approval: got %+v, want disputed with the stranger's rejection and the buyer's approval", a)
		}
		found, err := e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "stored approval", found.CommercialApproval, a)
		if r := found.Resource().CommercialApproval; r == nil || r.Status != sello.ApprovalDisputed || len(r.Verdicts) != 2 {
			t.Fatalf("resource: got %+v, want disputed with two verdicts", r)
		}
		events, err := e.s.ListEvents(t.Context(), tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApprovalDisputed, Limit: 10})
		if err != nil || len(events) != 1 || events[0].Data.Severity != "warning" || len(events[0].Data.Payload["verdicts"].([]any)) != 2 {
			t.Fatalf("disputed events: got %+v, %v; want one warning with both verdicts", events, err)
		}
		// Each holder's retry changes nothing; a third signer agreeing
		// with one of them adds nothing; the buyer cannot change its own.
		for _, again := range []*sello.ReceivedApproval{forged, approvalOf(tn, doc, sello.ApprovalApproved, "")} {
			if _, changed, err := e.s.ReceiveCommercialApproval(t.Context(), again); err != nil || changed {
				t.Fatalf("a retry: changed %v, %v; want unchanged", changed, err)
			}
		}
		third := approvalOf(tn, doc, sello.ApprovalRejected, "Otra")
		third.Signer = testSigner("IDCDO-22300000001", false)
		if _, changed, err := e.s.ReceiveCommercialApproval(t.Context(), third); err != nil || changed {
			t.Fatalf("a third signer's rejection: changed %v, %v; want unchanged", changed, err)
		}
		_, _, err = e.s.ReceiveCommercialApproval(t.Context(), approvalOf(tn, doc, sello.ApprovalRejected, "Cambio"))
		wantError(t, err, sello.CodeInvalidRequest, "cannot be changed")
	})
	t.Run("ErrMismatch", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		doc := mustAcceptedDocument(t, e.s, tn.ID, sello.EnvTest)
		a := approvalOf(tn, doc, sello.ApprovalApproved, "")
		a.Total, a.BuyerRNC = "1180.01", "101010101"
		_, _, err := e.s.ReceiveCommercialApproval(t.Context(), a)
		wantError(t, err, sello.CodeInvalidRequest, "matches no document")
		// The answer names none of the document's values.
		if msg := sello.ErrorMessageOf(err); strings.Contains(msg, doc.Total) || strings.Contains(msg, doc.BuyerRNC) || strings.Contains(msg, doc.IssueDate.DGII()) {
			t.Errorf("the refusal %q names the document's values", msg)
		}
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

// MustDisputedDocument creates a type-31 document of tenant in e, moves it
// to accepted, and records two different verdicts on it: a stranger's
// rejection ("Falsa", signed by an untrusted certificate of
// IDCDO-40200000009), then the buyer's approval (a trusted certificate of
// IDCDO-00100000001). Its commercial approval is disputed, with
// ecf.commercial_approval.disputed written. For the tests of pages that
// show disputes.
func MustDisputedDocument(tb testing.TB, s sello.Store, tn *sello.Tenant, e sello.Environment) *sello.Document {
	tb.Helper()
	doc := mustAcceptedDocument(tb, s, tn.ID, e)
	forged := approvalOf(tn, doc, sello.ApprovalRejected, "Falsa")
	forged.Signer = testSigner(strangerHolder, false)
	if _, _, err := s.ReceiveCommercialApproval(tb.Context(), forged); err != nil {
		tb.Fatal(err)
	}
	got, _, err := s.ReceiveCommercialApproval(tb.Context(), approvalOf(tn, doc, sello.ApprovalApproved, ""))
	if err != nil {
		tb.Fatal(err)
	}
	if got.CommercialApproval.Status != sello.ApprovalDisputed {
		tb.Fatalf("the approval of %s is %s, want disputed", got.ENCF, got.CommercialApproval.Status)
	}
	return got
}
