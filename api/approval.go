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
