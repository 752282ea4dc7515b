package portal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/pdf"
)

// The fiscal administration pages: Secuencias (sequences.go), Anulaciones
// (voids.go), Certificados (certificates.go) and Certificación
// (certification.go). Every member of the company reads them; who changes
// what is below. The rules are the domain's, as the API and the operator
// CLI apply them: sello.RegisterSequence, sello.CreateVoid,
// sello.OpenCertificateFile and sello.NewSelfSignedCertificate,
// sello.StartCertification and pdf.PrintedRepresentations.

var (
	// fiscalManagers register sequences and void ranges.
	fiscalManagers = []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleAccountant}
	// certificateManagers add signing certificates and start
	// certification runs.
	certificateManagers = []sello.Role{sello.RoleOwner, sello.RoleAdmin}
)

// formError is a refusal shown above a form: the domain's message and its
// details, in the reader's language.
type formError struct {
	Message string
	Details []string
}

// formErrorOf is err as a form shows it, or nil when err is not the
// reader's to fix (the caller returns it, for the error page).
func formErrorOf(v *visit, err error) *formError {
	switch sello.ErrorCodeOf(err) {
	case sello.CodeInvalidRequest, sello.CodeValidationFailed, sello.CodeConflict,
		sello.CodePayloadTooLarge, sello.CodeIdempotencyKeyReused, sello.CodeNotFound:
	default:
		return nil
	}
	f := &formError{Message: errorMessage(v.Lang, err)}
	var e *sello.Error
	if errors.As(err, &e) {
		for _, d := range e.LocalizedDetails(v.Lang) {
			if d.Path != "" {
				f.Details = append(f.Details, d.Path+": "+d.Message)
			} else {
				f.Details = append(f.Details, d.Message)
			}
		}
		if e.Truncated > 0 {
			f.Details = append(f.Details, v.T("… and %d more.", e.Truncated))
		}
	}
	return f
}

// auditFiscal records a change to the company's fiscal administration:
// who, from where, what (action), on what (target) and what it became
// (after). Passwords and keys never go in.
func (s *Server) auditFiscal(ctx context.Context, v *visit, action, target string, after any) error {
	if err := s.audit(ctx, v, action, target, nil, jsonOf(after)); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// fiscalFlashKeys are the messages after a fiscal page's action (?done=).
var fiscalFlashKeys = map[string]string{
	"sequence":    "The range is registered: Sello numbers documents from it once the ranges before it are used up.",
	"certificate": "The certificate is added.",
	"generated":   "A self-signed test certificate is added.",
}

// fiscalLayout is the layout of a fiscal page, with its flash message.
func (s *Server) fiscalLayout(r *http.Request, v *visit, title string) *layoutData {
	l := s.layout(r, v, title)
	if key, ok := fiscalFlashKeys[r.URL.Query().Get("done")]; ok {
		l.Flash = v.T(key)
	}
	return l
}

// canManage reports whether the visitor's role is one of roles.
func canManage(v *visit, roles []sello.Role) bool { return slices.Contains(roles, v.Role) }

// typeLabel is an e-CF type as the pages show it: "E31 · Factura de
// Crédito Fiscal Electrónica" (DGII's name, in Spanish in both languages,
// as DGII writes it).
func typeLabel(t sello.DocumentType) string {
	if name := pdf.TypeName(t); name != "" {
		return t.Code() + " · " + name
	}
	return t.Code()
}

// envPagePath is the path of an environment's page: /portal/{env}/{page}.
func envPagePath(env sello.Environment, page string, rest ...string) string {
	p := "/portal/" + string(env) + "/" + page
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// dgiiMessages are DGII's messages as the pages list them: "code: text".
func dgiiMessages(r *sello.DGIIResult) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, m := range r.Mensajes {
		if m.Codigo != nil {
			out = append(out, fmt.Sprintf("%d: %s", *m.Codigo, m.Valor))
		} else {
			out = append(out, m.Valor)
		}
	}
	return out
}

// dgiiEstado is DGII's estado with its codigo: "Aceptado (1)".
func dgiiEstado(r *sello.DGIIResult) string {
	switch {
	case r == nil:
		return ""
	case r.Codigo != nil && r.Estado != "":
		return fmt.Sprintf("%s (%d)", r.Estado, *r.Codigo)
	case r.Codigo != nil:
		return fmt.Sprint(*r.Codigo)
	}
	return r.Estado
}
