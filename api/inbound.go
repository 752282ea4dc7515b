package api

import (
	"net/http"
	"net/url"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/pdf"
)

// The inbound documents (DESIGN §4, §6): the e-CFs the tenant's suppliers
// posted to its receiver, read with scope ecf:read.

// inboundBody is the answer of GET /{env}/documentos-recibidos/{id}.
type inboundBody struct {
	OK            bool                          `json:"ok"`
	Document      sello.InboundDocumentResource `json:"document"`
	CorrelationID string                        `json:"correlationId"`
}

// handleListInbound returns a page of inbound documents, newest received
// first.
func (s *Server) handleListInbound(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	f, err := parseInboundFilter(r.URL.Query())
	if err != nil {
		return err
	}
	docs, next, err := s.Store.ListInboundDocuments(r.Context(), p.Tenant.ID, p.Env, f)
	if err != nil {
		return err
	}
	res := make([]sello.InboundDocumentResource, len(docs))
	for i, d := range docs {
		res[i] = d.Resource()
	}
	writeList(w, r, res, next)
	return nil
}

// parseInboundFilter reads the inbound list's query parameters, reporting
// every bad one. Returns INVALID_REQUEST.
func parseInboundFilter(q url.Values) (sello.InboundFilter, error) {
	f := sello.InboundFilter{Limit: sello.DefaultPageSize, Cursor: q.Get("cursor")}
	l := newListQuery(q, "issuer", "encf", "type", "approval", "dgii", "from", "to", "cursor", "limit")
	if v := q.Get("encf"); v != "" {
		if _, err := sello.ParseENCF(v); err != nil {
			l.p.AddText("encf", sello.ErrorText(err))
		}
		f.ENCF = v
	}
	if v := q.Get("issuer"); v != "" {
		if err := sello.ValidateRNC(v); err != nil {
			l.p.AddText("issuer", sello.ErrorText(err))
		}
		f.IssuerRNC = v
	}
	if v := q.Get("approval"); v != "" {
		a, err := sello.ParseApprovalState(v)
		if err != nil {
			l.p.AddText("approval", sello.ErrorText(err))
		}
		f.Approval = a
	}
	if v := q.Get("dgii"); v != "" {
		g, err := sello.ParseDGIIState(v)
		if err != nil {
			l.p.AddText("dgii", sello.ErrorText(err))
		}
		f.DGII = g
	}
	l.docType("type", &f.Type)
	l.time("from", &f.ReceivedFrom)
	l.time("to", &f.ReceivedTo)
	l.limit(&f.Limit)
	return f, l.err()
}

// findInbound returns the tenant's inbound document of the path's id.
// Returns NOT_FOUND.
func (s *Server) findInbound(r *http.Request) (*sello.InboundDocument, error) {
	p := principalFrom(r.Context())
	return s.Store.FindInboundDocument(r.Context(), p.Tenant.ID, p.Env, r.PathValue("id"))
}

// handleGetInbound returns one inbound document by id.
func (s *Server) handleGetInbound(w http.ResponseWriter, r *http.Request) error {
	d, err := s.findInbound(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, inboundBody{OK: true, Document: d.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// handleGetInboundXML returns the e-CF as the supplier posted it, byte for
// byte.
func (s *Server) handleGetInboundXML(w http.ResponseWriter, r *http.Request) error {
	d, err := s.findInbound(r)
	if err != nil {
		return err
	}
	writeArtifact(w, "application/xml", d.IssuerRNC+d.ENCF+".xml", d.XML)
	return nil
}

// handleGetInboundPDF returns the printed representation of a received
// e-CF (pdf.RenderReceived). Returns NOT_FOUND, or VALIDATION_FAILED for
// a document stored before the receiver read e-CFs whole and that does
// not read.
func (s *Server) handleGetInboundPDF(w http.ResponseWriter, r *http.Request) error {
	d, err := s.findInbound(r)
	if err != nil {
		return err
	}
	out, err := pdf.RenderReceived(principalFrom(r.Context()).Env, d.XML)
	if err != nil {
		return err
	}
	writeArtifact(w, "application/pdf", d.IssuerRNC+d.ENCF+".pdf", out)
	return nil
}
