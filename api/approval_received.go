package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// handleAprobacionComercial answers POST …/fe/aprobacioncomercial/api/ecf
// (FACTS §2.2): a buyer's signed ACECF on one of the tenant's documents.
// 200 when it is valid and matches the document, recorded with its
// ecf.commercial_approval.received event; 400 otherwise, 409 when it would
// change the verdict already recorded (docs/receptor.md).
func (s *Server) handleAprobacionComercial(w http.ResponseWriter, r *http.Request) error {
	env, t, err := s.receiverTenant(r)
	if err != nil {
		return err
	}
	if err := s.requireReceiverToken(r, t, env); err != nil {
		return err
	}
	data, filename, err := readXMLPart(w, r, ecf.MaxReplySize)
	if err != nil {
		return err
	}
	a, err := readApproval(data, filename)
	if err != nil {
		return err
	}
	a.TenantID, a.Environment = t.ID, env
	if err := a.CheckIssuer(t.RNC); err != nil {
		return err
	}
	doc, _, err := s.Store.ReceiveCommercialApproval(r.Context(), a)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return &sello.Error{Code: sello.CodeInvalidRequest, Err: err,
			Message: "No document " + a.ENCF + " issued by RNC " + t.RNC + " in " + string(env) + ": the approval matches nothing."}
	} else if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		OK                 bool                              `json:"ok"`
		ENCF               string                            `json:"encf"`
		CommercialApproval *sello.CommercialApprovalResource `json:"commercialApproval"`
		CorrelationID      string                            `json:"correlationId"`
	}{true, doc.ENCF, doc.CommercialApproval.Resource(), correlationID(r.Context())})
	return nil
}

// readApproval reads a signed ACECF into the approval it states: its
// fields (ecf.ParseACECF, whose VALIDATION_FAILED becomes INVALID_REQUEST
// with the same details, since DGII's contract answers 400), its file name
// {RNCComprador}{eNCF}.xml when one is given, and its signature (the
// wrapping-resistant xmldsig.Verify). Returns INVALID_REQUEST or
// PAYLOAD_TOO_LARGE.
func readApproval(data []byte, filename string) (*sello.ReceivedApproval, error) {
	x, err := ecf.ParseACECF(data)
	if err != nil {
		var e *sello.Error
		if errors.As(err, &e) && e.Code == sello.CodeValidationFailed {
			return nil, &sello.Error{Code: sello.CodeInvalidRequest, Message: "The ACECF is not valid: see details.",
				Details: e.Details, Truncated: e.Truncated, Err: err}
		}
		return nil, err
	}
	if filename != "" && !strings.EqualFold(filename, x.RNCComprador+x.ENCF+".xml") {
		return nil, sello.Errorf(sello.CodeInvalidRequest, "The file must be named %s%s.xml (RNCComprador and eNCF), not %q.", x.RNCComprador, x.ENCF, filename)
	}
	if _, err := xmldsig.Verify(data); err != nil {
		return nil, &sello.Error{Code: sello.CodeInvalidRequest, Message: "The ACECF's signature is not valid.", Err: err}
	}
	a := &sello.ReceivedApproval{
		IssuerRNC: x.RNCEmisor, ENCF: x.ENCF, IssueDate: x.FechaEmision, Total: x.MontoTotal,
		BuyerRNC: x.RNCComprador, Status: sello.ApprovalApproved, DecidedAt: x.At,
	}
	if x.Estado == ecf.ApprovalRejected {
		a.Status, a.Reason = sello.ApprovalRejected, x.DetalleMotivoRechazo
	}
	return a, nil
}
