package api

import (
	"net/http"

	"github.com/sello-do/sello"
)

// approvalBody is the success body carrying one commercial approval.
type approvalBody struct {
	OK            bool                   `json:"ok"`
	Approval      sello.ApprovalResource `json:"approval"`
	CorrelationID string                 `json:"correlationId"`
}

// handleCreateApproval records the tenant's commercial approval or
// rejection of an inbound document and queues its sending (202, status
// pending): 400 for a malformed request, 404 for an inbound document the
// tenant does not have, 409 when it was approved or rejected already, 422
// for a type that takes no approval or a document DGII has not accepted
// (dgii.status pending, not_found, rejected or refuted).
func (s *Server) handleCreateApproval(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req sello.ApprovalRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	a, err := s.Store.ApproveInboundDocument(r.Context(), p.Tenant.ID, p.Env, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, approvalBody{OK: true, Approval: a.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// handleListApprovals returns a page of the tenant's commercial approvals
// in the environment, newest first, each with the outcome of its legs (to
// the issuer and to DGII); status and inboundDocumentId filter.
func (s *Server) handleListApprovals(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	q := r.URL.Query()
	l := newListQuery(q, "status", "inboundDocumentId", "cursor", "limit")
	pq := l.page()
	f := sello.ApprovalFilter{Cursor: pq.Cursor, Limit: pq.Limit, InboundDocumentID: q.Get("inboundDocumentId")}
	if v := q.Get("status"); v != "" {
		st, err := sello.ParseApprovalSendStatus(v)
		if err != nil {
			l.p.AddText("status", sello.ErrorText(err))
		}
		f.Status = st
	}
	if err := l.err(); err != nil {
		return err
	}
	as, next, err := s.Store.ListApprovals(r.Context(), p.Tenant.ID, p.Env, f)
	if err != nil {
		return err
	}
	out := make([]sello.ApprovalResource, len(as))
	for i, a := range as {
		out[i] = a.Resource()
	}
	writeList(w, r, out, next)
	return nil
}

// handleGetApproval returns one of the tenant's commercial approvals by its
// id (the approval's, not its inbound document's). Returns NOT_FOUND.
func (s *Server) handleGetApproval(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	a, err := s.Store.FindApproval(r.Context(), p.Tenant.ID, p.Env, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, approvalBody{OK: true, Approval: a.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}
