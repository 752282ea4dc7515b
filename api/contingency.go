package api

import (
	"net/http"

	"github.com/sello-do/sello"
)

// dgiiStatusBody is the success body of GET /{env}/estado-dgii.
type dgiiStatusBody struct {
	OK            bool                       `json:"ok"`
	DGII          sello.ReachabilityResource `json:"dgii"`
	CorrelationID string                     `json:"correlationId"`
}

// handleGetDGIIStatus answers the environment's DGII state (available,
// contingency or draining, since when) and how many of the tenant's
// documents have not reached DGII, the oldest's creation and its deadline.
func (s *Server) handleGetDGIIStatus(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	reach, err := s.Store.FindReachability(r.Context(), p.Env)
	if err != nil {
		return err
	}
	n, oldest, err := s.Store.CountWaitingDocuments(r.Context(), p.Tenant.ID, p.Env)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, dgiiStatusBody{OK: true, DGII: reach.Resource(n, oldest), CorrelationID: correlationID(r.Context())})
	return nil
}
