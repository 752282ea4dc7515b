package api

import (
	"net/http"
	"strconv"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/pdf"
)

// handleGetDocumentXML returns the signed XML exactly as sent to DGII.
// Returns NOT_FOUND until the document is signed.
func (s *Server) handleGetDocumentXML(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	encf := r.PathValue("encf")
	if _, err := sello.ParseENCF(encf); err != nil {
		return err
	}
	xml, err := s.Store.FindDocumentXML(r.Context(), p.Tenant.ID, p.Env, encf)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return sello.Errorf(sello.CodeNotFound, "Document %s has no signed XML in %s (it does not exist or is not signed yet).", encf, p.Env)
	} else if err != nil {
		return err
	}
	writeArtifact(w, "application/xml", encf+".xml", xml)
	return nil
}

// handleGetDocumentPDF returns DGII's printed representation with the
// timbre QR. Returns NOT_FOUND until the document is signed.
func (s *Server) handleGetDocumentPDF(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	encf := r.PathValue("encf")
	if _, err := sello.ParseENCF(encf); err != nil {
		return err
	}
	out, err := pdf.OfDocument(r.Context(), s.Store, p.Tenant.ID, p.Env, encf)
	if err != nil {
		return err
	}
	writeArtifact(w, "application/pdf", encf+".pdf", out)
	return nil
}

func writeArtifact(w http.ResponseWriter, contentType, name string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
