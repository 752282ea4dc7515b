package api

import (
	"net/http"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// handleAprobacionComercial answers POST …/fe/aprobacioncomercial/api/ecf
// (FACTS §2.2): a buyer's signed ACECF on one of the tenant's documents
// (sello.Reception.ReceiveApproval). 200 with the ACECF's verdict as
// recorded; 400 otherwise, as DGII's contract says ("insatisfactorio"),
// the reason of a refused signer or mismatch in the log only
// (docs/receptor.md).
func (s *Server) handleAprobacionComercial(w http.ResponseWriter, r *http.Request) error {
	env, t, err := s.receiverTenant(r)
	if err != nil {
		return err
	}
	tok, err := s.receiverToken(r, t, env)
	if err != nil {
		return err
	}
	data, filename, err := readXMLPart(w, r, ecf.MaxReplySize)
	if err != nil {
		return err
	}
	v, doc, err := s.reception().ReceiveApproval(r.Context(), sello.ReceivedACECF{Tenant: t, Environment: env, Token: tok, XML: data, FileName: filename})
	if err != nil {
		if sello.ErrorCodeOf(err) == sello.CodeInvalidRequest {
			s.logRefusal(r, t.RNC, env, "an ACECF", err)
		}
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		OK                 bool                          `json:"ok"`
		ENCF               string                        `json:"encf"`
		CommercialApproval sello.ApprovalVerdictResource `json:"commercialApproval"`
		CorrelationID      string                        `json:"correlationId"`
	}{true, doc.ENCF, v.Resource(), correlationID(r.Context())})
	return nil
}
