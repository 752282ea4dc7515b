package api

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// The tenants' receiver services (DESIGN §6; FACTS §2): what DGII and the
// tenant's suppliers call, under /{env}/receptor/{rnc}. Their answers are
// DGII's formats (XML, and the token's flat JSON), not the API's envelope;
// their errors are the API's error body.

// multipartOverhead is what an upload may carry besides its xml part:
// boundaries, part headers and small other fields.
const multipartOverhead = 64 << 10

// receiverTenant returns the environment and the tenant of a receiver
// path. Returns NOT_FOUND for an unknown environment or RNC.
func (s *Server) receiverTenant(r *http.Request) (sello.Environment, *sello.Tenant, error) {
	env, err := sello.ParseEnvironmentAnyCase(r.PathValue("env"))
	if err != nil {
		return "", nil, sello.Errorf(sello.CodeNotFound, "No such environment %q.", r.PathValue("env"))
	}
	rnc := r.PathValue("rnc")
	if sello.ValidateRNC(rnc) != nil {
		return "", nil, sello.Errorf(sello.CodeNotFound, "No receiver at RNC %q.", rnc)
	}
	t, err := s.Store.FindTenantByRNC(r.Context(), rnc)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return "", nil, sello.Errorf(sello.CodeNotFound, "No receiver at RNC %q.", rnc)
	}
	return env, t, err
}

// requireReceiverToken checks the bearer token of a call to the tenant's
// reception service, unless the tenant turned authentication off. Returns
// UNAUTHENTICATED.
func (s *Server) requireReceiverToken(r *http.Request, t *sello.Tenant, env sello.Environment) error {
	if t.ReceiverAuthOff {
		return nil
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return sello.Errorf(sello.CodeUnauthenticated,
			"This receiver requires Authorization: Bearer with a token from its fe/autenticacion/api/validacioncertificado service.")
	}
	return s.Store.CheckReceiverToken(r.Context(), t.ID, env, sello.HashReceiverToken(strings.TrimSpace(token)), s.now())
}

// readXMLPart reads the part named xml of a multipart/form-data request,
// at most max bytes, and its file name. Returns UNSUPPORTED_MEDIA_TYPE,
// PAYLOAD_TOO_LARGE or INVALID_REQUEST.
func readXMLPart(w http.ResponseWriter, r *http.Request, max int) ([]byte, string, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, "", sello.Errorf(sello.CodeUnsupportedMediaType,
			"Send multipart/form-data with the document in a part named xml (Content-Type %q).", r.Header.Get("Content-Type"))
	}
	limit := int64(max) + multipartOverhead
	if r.ContentLength > limit {
		return nil, "", xmlTooLarge(max)
	}
	mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, limit), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return nil, "", sello.Errorf(sello.CodeInvalidRequest, "The request has no part named xml.")
		} else if err != nil {
			return nil, "", uploadError(err, max)
		}
		if p.FormName() != "xml" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(p, int64(max)+1))
		if err != nil {
			return nil, "", uploadError(err, max)
		} else if len(data) > max {
			return nil, "", xmlTooLarge(max)
		} else if len(data) == 0 {
			return nil, "", sello.Errorf(sello.CodeInvalidRequest, "The xml part is empty.")
		}
		return data, p.FileName(), nil
	}
}

func xmlTooLarge(max int) error {
	return sello.Errorf(sello.CodePayloadTooLarge, "The xml part exceeds the limit of %d bytes.", max)
}

// uploadError is the error of a multipart body that could not be read.
func uploadError(err error, max int) error {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return xmlTooLarge(max)
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) {
		return bodyReadError(err)
	}
	return &sello.Error{Code: sello.CodeInvalidRequest, Message: "The multipart body is malformed.", Err: err}
}

// writeXML writes an XML answer.
func writeXML(w http.ResponseWriter, status int, body []byte) error {
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// handleSemilla answers GET …/fe/autenticacion/api/semilla: a fresh seed
// the caller signs and posts to validacioncertificado.
func (s *Server) handleSemilla(w http.ResponseWriter, r *http.Request) error {
	env, t, err := s.receiverTenant(r)
	if err != nil {
		return err
	}
	now, value := s.now(), sello.NewReceiverSeed()
	if err := s.Store.CreateReceiverSeed(r.Context(), t.ID, env, value, now.Add(sello.ReceiverSeedTTL)); err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, ecf.SemillaXML(value, now))
}

// tokenAnswer is validacioncertificado's answer (FACTS §2.2): flat, as
// DGII reads response['token'].
type tokenAnswer struct {
	XMLName  xml.Name `json:"-" xml:"RespuestaAutenticacion"`
	Token    string   `json:"token" xml:"token"`
	Expira   string   `json:"expira" xml:"expira"`
	Expedido string   `json:"expedido" xml:"expedido"`
}

// handleValidacionCertificado answers POST
// …/fe/autenticacion/api/validacioncertificado: a token for a seed this
// receiver issued to the tenant, unused, unexpired and validly signed.
func (s *Server) handleValidacionCertificado(w http.ResponseWriter, r *http.Request) error {
	env, t, err := s.receiverTenant(r)
	if err != nil {
		return err
	}
	data, _, err := readXMLPart(w, r, ecf.MaxReplySize)
	if err != nil {
		return err
	}
	value, err := ecf.ParseSemilla(data)
	if err != nil {
		return err
	}
	if _, err := xmldsig.Verify(data); err != nil {
		return &sello.Error{Code: sello.CodeUnauthenticated, Message: "The seed's signature is not valid.", Err: err}
	}
	now := s.now()
	tok, plain := sello.NewReceiverToken(t.ID, env, now.UTC().Truncate(time.Second))
	if err := s.Store.RedeemReceiverSeed(r.Context(), t.ID, env, value, tok, now); err != nil {
		return err
	}
	const layout = "2006-01-02T15:04:05Z"
	ans := tokenAnswer{Token: plain, Expira: tok.ExpiresAt.Format(layout), Expedido: tok.IssuedAt.Format(layout)}
	if wantsXML(r) {
		b, err := xml.Marshal(ans)
		if err != nil {
			return err
		}
		return writeXML(w, http.StatusOK, append([]byte(xml.Header), b...))
	}
	writeJSON(w, http.StatusOK, ans)
	return nil
}

// wantsXML reports whether the request's Accept prefers XML to JSON.
func wantsXML(r *http.Request) bool {
	a := strings.ToLower(r.Header.Get("Accept"))
	return strings.Contains(a, "xml") && !strings.Contains(a, "json")
}

// handleRecepcion answers POST …/fe/recepcion/api/ecf with a signed ARECF
// (FACTS §2.3), having stored a received document and its acuse first.
func (s *Server) handleRecepcion(w http.ResponseWriter, r *http.Request) error {
	env, t, err := s.receiverTenant(r)
	if err != nil {
		return err
	}
	if err := s.requireReceiverToken(r, t, env); err != nil {
		return err
	}
	data, filename, err := readXMLPart(w, r, ecf.MaxECFSize)
	if err != nil {
		return err
	}
	acuse, err := s.receive(r, t, env, data, filename)
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, acuse)
}

// receive decides, signs and (when received) stores the acuse of data.
func (s *Server) receive(r *http.Request, t *sello.Tenant, env sello.Environment, data []byte, filename string) ([]byte, error) {
	ctx := r.Context()
	rx, err := ecf.ReadReceivedECF(data) // the header and the XSD structure, in one pass
	if sello.ErrorCodeOf(err) == sello.CodeValidationFailed {
		// Readable enough to answer: a specification error.
		if rnc, encf := ecf.ECFIdentity(data); rnc != "" {
			return s.signAcuse(ctx, t, env, &ecf.ARECF{RNCEmisor: rnc, ENCF: encf}, ecf.ReasonSpecification)
		}
		return nil, err
	} else if err != nil {
		return nil, err
	}
	h := &rx.ECFHeader
	a := &ecf.ARECF{RNCEmisor: h.RNCEmisor, ENCF: h.ENCF}
	stored, err := s.Store.FindInboundDocumentByENCF(ctx, t.ID, env, h.RNCEmisor, h.ENCF)
	if err == nil && stored.Same(data) {
		return stored.Acuse, nil // a retry: the same answer
	} else if err != nil && sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return nil, err
	}
	switch {
	case filename != "" && !strings.EqualFold(filename, h.RNCEmisor+h.ENCF+".xml"):
		return s.signAcuse(ctx, t, env, a, ecf.ReasonSpecification)
	case !verifies(data):
		// Before the structure: a wrapped or tampered document is a
		// signature problem (code 2), whatever else it carries.
		return s.signAcuse(ctx, t, env, a, ecf.ReasonSignature)
	case rx.Invalid != nil:
		// The ARECF has no room for the problem: code 1 says it all.
		return s.signAcuse(ctx, t, env, a, ecf.ReasonSpecification)
	case !h.TipoeCF.B2B():
		return s.signAcuse(ctx, t, env, a, ecf.ReasonSpecification)
	case h.RNCComprador != t.RNC:
		return s.signAcuse(ctx, t, env, a, ecf.ReasonWrongBuyer)
	case stored != nil:
		return s.signAcuse(ctx, t, env, a, ecf.ReasonDuplicate)
	}
	acuse, err := s.signAcuse(ctx, t, env, a, 0)
	if err != nil {
		return nil, err
	}
	d := &sello.InboundDocument{
		TenantID: t.ID, Environment: env, Type: h.TipoeCF, ENCF: h.ENCF,
		IssuerRNC: h.RNCEmisor, IssuerName: h.RazonSocialEmisor, BuyerRNC: h.RNCComprador,
		IssueDate: h.FechaEmision, Total: h.MontoTotal, XML: data, Acuse: acuse,
	}
	stored, existing, err := s.Store.CreateInboundDocument(ctx, d)
	if err != nil {
		return nil, err
	} else if existing && !stored.Same(data) {
		// Another document under this e-NCF got in first.
		return s.signAcuse(ctx, t, env, a, ecf.ReasonDuplicate)
	}
	return stored.Acuse, nil
}

// verifies reports whether data's signature holds (xmldsig.Verify, which
// refuses wrapped signatures).
func verifies(data []byte) bool {
	_, err := xmldsig.Verify(data)
	return err == nil
}

// signAcuse completes a (its RNCEmisor and eNCF set) as the tenant's acuse
// now, received when reason is 0, and signs it with the tenant's
// certificate. Returns UNAVAILABLE when the tenant has no valid
// certificate in env.
func (s *Server) signAcuse(ctx context.Context, t *sello.Tenant, env sello.Environment, a *ecf.ARECF, reason ecf.NotReceivedReason) ([]byte, error) {
	now := s.now()
	a.RNCComprador, a.At = t.RNC, now
	a.Estado, a.CodigoMotivoNoRecibido = ecf.ReceiptReceived, reason
	if reason != 0 {
		a.Estado = ecf.ReceiptNotReceived
	}
	unsigned, err := a.XML()
	if err != nil {
		return nil, fmt.Errorf("build arecf: %w", err)
	}
	cert, err := s.Store.FindSigningCertificate(ctx, t.ID, env, now)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return nil, &sello.Error{Code: sello.CodeUnavailable, Message: "This receiver cannot sign its acuse now: it has no valid certificate in " + string(env) + ".", Err: err}
	} else if err != nil {
		return nil, err
	}
	key, x, err := cert.OpenKey(s.MasterKey)
	if err != nil {
		return nil, err
	}
	signed, err := (&xmldsig.Signer{Key: key, Cert: x}).Sign(unsigned)
	if err != nil {
		return nil, fmt.Errorf("sign arecf: %w", err)
	}
	return signed, nil
}
