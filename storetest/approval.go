package storetest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// mustApprove records the approval r asks for.
func mustApprove(tb testing.TB, s sello.Store, tenantID string, r sello.ApprovalRequest) *sello.InboundApproval {
	tb.Helper()
	a, err := s.ApproveInboundDocument(tb.Context(), tenantID, sello.EnvTest, r)
	if err != nil {
		tb.Fatalf("ApproveInboundDocument: %v", err)
	}
	return a
}

func testApprovals(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		d := mustCreateConfirmed(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		a := mustApprove(t, e.s, tn.ID, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoRechazado, Motivo: "Precio incorrecto"})
		if a.ID == "" || a.State != sello.ApprovalRejected || a.Reason != "Precio incorrecto" || a.Status != sello.ApprovalSendPending ||
			a.Issuer.Status != sello.ApprovalSendPending || a.DGII.Status != sello.ApprovalSendPending || a.ENCF != d.ENCF || a.IssuerRNC != d.IssuerRNC {
			t.Fatalf("approval: got %+v", a)
		}
		got, err := e.s.FindInboundApproval(t.Context(), tn.ID, sello.EnvTest, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "FindInboundApproval", got, a)
		doc, err := e.s.FindInboundDocument(t.Context(), tn.ID, sello.EnvTest, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Approval != sello.ApprovalRejected {
			t.Errorf("inbound document's approval: got %q, want rejected", doc.Approval)
		}
		jobs := mustJobsOf(t, newRunner(t, e.s, nil), sello.ApprovalJob{}.Kind())
		if len(jobs) != 1 || jobs[0].Args.TenantID != tn.ID || jobs[0].MaxAttempts != sello.ApprovalJobMaxAttempts {
			t.Fatalf("approval jobs: got %+v, want one of tenant %s with %d attempts", jobs, tn.ID, sello.ApprovalJobMaxAttempts)
		}
	})

	t.Run("Outcome", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		d := mustCreateConfirmed(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		mustApprove(t, e.s, tn.ID, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoAprobado})
		sent := &sello.ApprovalLeg{Status: sello.ApprovalSendSent, Answer: sello.NewDGIITextResult("1", "Aprobación comercial aprobada", nil)}
		a, err := e.s.RecordApprovalOutcome(t.Context(), tn.ID, sello.EnvTest, d.ID, sello.ApprovalOutcome{ACECF: []byte("<ACECF/>"), DGII: sent})
		if err != nil || a.Status != sello.ApprovalSendPending {
			t.Fatalf("one leg: got %+v, %v", a, err)
		}
		failed := &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "HTTP 400"}
		if a, err = e.s.RecordApprovalOutcome(t.Context(), tn.ID, sello.EnvTest, d.ID, sello.ApprovalOutcome{Issuer: failed}); err != nil {
			t.Fatal(err)
		}
		got, err := e.s.FindInboundApproval(t.Context(), tn.ID, sello.EnvTest, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "after both legs", got, a)
		if got.Status != sello.ApprovalSendFailed || string(got.ACECF) != "<ACECF/>" || !reflect.DeepEqual(got.Issuer, *failed) {
			t.Fatalf("after both legs: got %+v", got)
		}
		// DGII's answer to its leg reads back whole.
		deepEqual(t, "DGII leg", got.DGII, *sent)
		if got.DGII.Answer == nil || got.DGII.Answer.Codigo == nil || *got.DGII.Answer.Codigo != 1 {
			t.Fatalf("DGII leg's answer: got %+v", got.DGII.Answer)
		}
		events := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundApprovalFailed, Limit: 10}, AtLeast(1))
		if len(events) != 1 || events[0].Data.Payload["inboundDocumentId"] != d.ID || events[0].Document.ENCF != d.ENCF {
			t.Fatalf("events: got %+v, want one %s", events, sello.EventInboundApprovalFailed)
		}
		_, err = e.s.RecordApprovalOutcome(t.Context(), tn.ID, sello.EnvTest, d.ID, sello.ApprovalOutcome{Issuer: sent})
		if sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("outcome after the end: got %v, want CONFLICT", err)
		}
	})

	t.Run("ErrTwice", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		d := mustCreateConfirmed(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		first := mustApprove(t, e.s, tn.ID, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoAprobado})
		_, err := e.s.ApproveInboundDocument(t.Context(), tn.ID, sello.EnvTest, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoRechazado, Motivo: "no"})
		if sello.ErrorCodeOf(err) != sello.CodeConflict || !strings.Contains(err.Error(), "approved already") {
			t.Fatalf("second approval: got %v, want CONFLICT", err)
		}
		got, err := e.s.FindInboundApproval(t.Context(), tn.ID, sello.EnvTest, d.ID)
		if err != nil || got.ID != first.ID || got.State != sello.ApprovalApproved {
			t.Fatalf("after the refused second: got %+v, %v; want the first", got, err)
		}
		if jobs := mustJobsOf(t, newRunner(t, e.s, nil), sello.ApprovalJob{}.Kind()); len(jobs) != 1 {
			t.Fatalf("approval jobs: got %d, want 1", len(jobs))
		}
	})

	t.Run("ErrNotApplicable", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		in := newInbound(tn.ID, sello.EnvTest, "131000001", 1)
		in.Type, in.ENCF = sello.TypeConsumo, "E320000000001"
		d := mustCreateConfirmed(t, e.s, in)
		_, err := e.s.ApproveInboundDocument(t.Context(), tn.ID, sello.EnvTest, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoAprobado})
		if sello.ErrorCodeOf(err) != sello.CodeValidationFailed {
			t.Fatalf("got %v, want VALIDATION_FAILED", err)
		}
		if _, err := e.s.FindInboundApproval(t.Context(), tn.ID, sello.EnvTest, d.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("FindInboundApproval: got %v, want NOT_FOUND", err)
		}
	})

	// DGII takes approvals only of e-CFs it accepted, and a document DGII
	// has not confirmed may be a forgery: refused, with the reason.
	t.Run("ErrUnconfirmed", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		for i, c := range []struct {
			codigo int
			why    string
		}{{-1, "pending"}, {0, "not_found"}, {2, "rejected"}} {
			d := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", int64(i+1)))
			if c.codigo >= 0 {
				MustRecordDGII(t, e.s, tn.ID, sello.EnvTest, d.ID, c.codigo, "")
			}
			_, err := e.s.ApproveInboundDocument(t.Context(), tn.ID, sello.EnvTest, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoAprobado})
			wantError(t, err, sello.CodeValidationFailed, "dgii.status "+c.why)
			if _, err := e.s.FindInboundApproval(t.Context(), tn.ID, sello.EnvTest, d.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
				t.Fatalf("%s: FindInboundApproval: got %v, want NOT_FOUND", c.why, err)
			}
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		d := mustCreateConfirmed(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		_, err := e.s.ApproveInboundDocument(t.Context(), tn.ID, sello.EnvTest, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoRechazado})
		if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("got %v, want INVALID_REQUEST", err)
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		d := mustCreateConfirmed(t, e.s, newInbound(a.ID, sello.EnvTest, "131000001", 1))
		r := sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoAprobado}
		if _, err := e.s.ApproveInboundDocument(t.Context(), b.ID, sello.EnvTest, r); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("other tenant: got %v, want NOT_FOUND", err)
		}
		if _, err := e.s.ApproveInboundDocument(t.Context(), a.ID, sello.EnvCert, r); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("other environment: got %v, want NOT_FOUND", err)
		}
		mustApprove(t, e.s, a.ID, r)
		if _, err := e.s.FindInboundApproval(t.Context(), b.ID, sello.EnvTest, d.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("FindInboundApproval of another tenant: got %v, want NOT_FOUND", err)
		}
		out := sello.ApprovalOutcome{DGII: &sello.ApprovalLeg{Status: sello.ApprovalSendSent}}
		if _, err := e.s.RecordApprovalOutcome(t.Context(), b.ID, sello.EnvTest, d.ID, out); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Fatalf("RecordApprovalOutcome of another tenant: got %v, want NOT_FOUND", err)
		}
	})
}
