package storetest

import (
	"testing"

	"github.com/sello-do/sello"
)

// approvalIDs lists the ids of as.
func approvalIDs(as []*sello.InboundApproval) []string {
	ids := make([]string, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

// mustListApprovals returns every page of the tenant's approvals in env
// under f, following the cursors.
func mustListApprovals(tb testing.TB, s sello.Store, tenantID string, env sello.Environment, f sello.ApprovalFilter) []*sello.InboundApproval {
	tb.Helper()
	return mustListAll(tb, f.Limit, func(cursor string) ([]*sello.InboundApproval, string, error) {
		f.Cursor = cursor
		return s.ListApprovals(tb.Context(), tenantID, env, f)
	})
}

func testApprovalList(t *testing.T, open Open) {
	e := newEnv(t, open)
	tn, other := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
	var approvals []*sello.InboundApproval // oldest first
	for i := range int64(4) {
		d := mustCreateConfirmed(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", i+1))
		if i == 3 {
			continue // received, never approved: not an approval
		}
		approvals = append(approvals, mustApprove(t, e.s, tn.ID, sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: sello.EstadoAprobado}))
	}
	sent := &sello.ApprovalLeg{Status: sello.ApprovalSendSent}
	a, err := e.s.RecordApprovalOutcome(t.Context(), tn.ID, sello.EnvTest, approvals[1].InboundDocumentID,
		sello.ApprovalOutcome{ACECF: []byte("<ACECF/>"), Issuer: sent, DGII: &sello.ApprovalLeg{Status: sello.ApprovalSendSent, Answer: sello.NewDGIITextResult("1", "Aprobada", nil)}})
	if err != nil || a.Status != sello.ApprovalSendSent {
		t.Fatalf("RecordApprovalOutcome: %+v, %v", a, err)
	}
	approvals[1] = a
	// Not the tenant's, or not in its environment: never listed.
	od := mustCreateConfirmed(t, e.s, newInbound(other.ID, sello.EnvTest, "131000001", 9))
	otherApproval := mustApprove(t, e.s, other.ID, sello.ApprovalRequest{InboundDocumentID: od.ID, Estado: sello.EstadoAprobado})
	cd := mustCreateConfirmed(t, e.s, newInbound(tn.ID, sello.EnvCert, "131000001", 9))
	if _, err := e.s.ApproveInboundDocument(t.Context(), tn.ID, sello.EnvCert, sello.ApprovalRequest{InboundDocumentID: cd.ID, Estado: sello.EstadoAprobado}); err != nil {
		t.Fatal(err)
	}
	newest := []*sello.InboundApproval{approvals[2], approvals[1], approvals[0]}

	t.Run("OK", func(t *testing.T) {
		got := mustListApprovals(t, e.s, tn.ID, sello.EnvTest, sello.ApprovalFilter{Limit: 2})
		deepEqual(t, "ids, newest first", approvalIDs(got), approvalIDs(newest))
		// A listed approval is the approval without its ACECF.
		want := *approvals[1]
		want.ACECF = nil
		deepEqual(t, "listed approval", got[1], &want)
	})
	t.Run("Filters", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			f    sello.ApprovalFilter
			want []*sello.InboundApproval
		}{
			{"StatusSent", sello.ApprovalFilter{Status: sello.ApprovalSendSent}, []*sello.InboundApproval{approvals[1]}},
			{"StatusPending", sello.ApprovalFilter{Status: sello.ApprovalSendPending, Limit: 1}, []*sello.InboundApproval{approvals[2], approvals[0]}},
			{"StatusFailed", sello.ApprovalFilter{Status: sello.ApprovalSendFailed}, nil},
			{"InboundDocument", sello.ApprovalFilter{InboundDocumentID: approvals[0].InboundDocumentID}, []*sello.InboundApproval{approvals[0]}},
			{"InboundDocumentOfAnotherTenant", sello.ApprovalFilter{InboundDocumentID: od.ID}, nil},
		} {
			t.Run(tt.name, func(t *testing.T) {
				deepEqual(t, "ids", approvalIDs(mustListApprovals(t, e.s, tn.ID, sello.EnvTest, tt.f)), approvalIDs(tt.want))
			})
		}
	})
	t.Run("Find", func(t *testing.T) {
		got, err := e.s.FindApproval(t.Context(), tn.ID, sello.EnvTest, approvals[1].ID)
		if err != nil {
			t.Fatal(err)
		}
		deepEqual(t, "FindApproval", got, approvals[1])
	})
	t.Run("Isolation", func(t *testing.T) {
		got := mustListApprovals(t, e.s, other.ID, sello.EnvTest, sello.ApprovalFilter{})
		deepEqual(t, "the other tenant's", approvalIDs(got), []string{otherApproval.ID})
		if got := mustListApprovals(t, e.s, tn.ID, sello.EnvCert, sello.ApprovalFilter{}); len(got) != 1 || got[0].Environment != sello.EnvCert {
			t.Fatalf("CerteCF lists %v, want its one approval", approvalIDs(got))
		}
		_, err := e.s.FindApproval(t.Context(), tn.ID, sello.EnvTest, otherApproval.ID)
		wantError(t, err, sello.CodeNotFound, otherApproval.ID)
		_, err = e.s.FindApproval(t.Context(), other.ID, sello.EnvCert, approvals[0].ID)
		wantError(t, err, sello.CodeNotFound, approvals[0].ID)
		_, err = e.s.FindApproval(t.Context(), tn.ID, sello.EnvCert, approvals[0].ID)
		wantError(t, err, sello.CodeNotFound, approvals[0].ID)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := e.s.FindApproval(t.Context(), tn.ID, sello.EnvTest, sello.NewID())
		wantError(t, err, sello.CodeNotFound, "not found")
		// An inbound document's id is not its approval's.
		_, err = e.s.FindApproval(t.Context(), tn.ID, sello.EnvTest, approvals[0].InboundDocumentID)
		wantError(t, err, sello.CodeNotFound, "not found")
	})
	t.Run("ErrCursor", func(t *testing.T) {
		_, _, err := e.s.ListApprovals(t.Context(), tn.ID, sello.EnvTest, sello.ApprovalFilter{Cursor: "not-a-cursor"})
		wantError(t, err, sello.CodeInvalidRequest, "Cursor")
	})
}
