package api

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// The tenants' receiver services (DESIGN §6; FACTS §2): what DGII and the
// tenant's suppliers call, under /{env}/receptor/{rnc}. Their answers are
// DGII's formats (XML, and the token's flat JSON), not the API's envelope;
// their errors are the API's error body.

// multipartOverhead is what an upload may carry besides its xml part:
// boundaries, part headers and small other fields.
const multipartOverhead = 64 << 10

// receiverPath returns the environment and the RNC of a receiver path.
// Returns NOT_FOUND for an unknown environment or a malformed RNC (both
// public knowledge); an RNC that is no tenant's is answered as a tenant's
// (docs/receptor.md, "Limits").
func receiverPath(r *http.Request) (sello.Environment, string, error) {
	env, err := sello.ParseEnvironmentAnyCase(r.PathValue("env"))
	if err != nil {
		return "", "", sello.Errorf(sello.CodeNotFound, "No such environment %q.", r.PathValue("env"))
	}
	rnc := r.PathValue("rnc")
	if sello.ValidateRNC(rnc) != nil {
		return "", "", sello.Errorf(sello.CodeNotFound, "No receiver at RNC %q.", rnc)
	}
	return env, rnc, nil
}

// receiverTenant returns the environment and the tenant of a receiver
// path, a nil tenant when the RNC is no tenant's (sello.Reception's
// Authenticate refuses the call as at a tenant's). Returns NOT_FOUND
// (receiverPath).
func (s *Server) receiverTenant(r *http.Request) (sello.Environment, *sello.Tenant, error) {
	env, rnc, err := receiverPath(r)
	if err != nil {
		return "", nil, err
	}
	t, err := s.Store.FindTenantByRNC(r.Context(), rnc)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return env, nil, nil
	}
	return env, t, err
}

// reception is the domain's answerer of the receiver services, over the
// server's store, trust roots, master key and clock.
func (s *Server) reception() *sello.Reception {
	return &sello.Reception{Store: s.Store, XML: receptionXML{}, Trust: s.ReceiverTrust, MasterKey: s.MasterKey, Keys: &s.acuseKeys, Tokens: &s.receiverTokens, Now: s.now,
		SeedKey: s.seedKey, IssuerQuota: s.receiverLimits().IssuerQuota, ENCFQuota: s.receiverLimits().ENCFQuota}
}

// receiverToken checks the bearer token of a call to the tenant's
// reception or commercial approval service (sello.Reception.Authenticate).
// Returns UNAUTHENTICATED.
func (s *Server) receiverToken(r *http.Request, t *sello.Tenant, env sello.Environment) (*sello.ReceiverToken, error) {
	token := ""
	if scheme, v, _ := strings.Cut(r.Header.Get("Authorization"), " "); strings.EqualFold(scheme, "Bearer") {
		token = strings.TrimSpace(v)
	}
	return s.reception().Authenticate(r.Context(), t, env, token)
}

// logRefusal logs why a receiver service refused a call: the answer does
// not say (a caller learns nothing from it), the operator needs to know.
func (s *Server) logRefusal(r *http.Request, rnc string, env sello.Environment, what string, why error) {
	s.Logger.LogAttrs(r.Context(), slog.LevelWarn, "receiver refused "+what,
		slog.String("correlation_id", correlationID(r.Context())), slog.String("tenant_rnc", rnc),
		slog.String("environment", string(env)), slog.String("reason", why.Error()))
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
		data, err := readChunked(io.LimitReader(p, int64(max)+1))
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

// readChunk is the size of the pooled buffers readChunked reads into.
const readChunk = 32 << 10

var readChunks = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// readChunked is io.ReadAll into pooled buffers of readChunk bytes, copied
// once into a slice of the exact size at the end: io.ReadAll grows its
// slice a step at a time, copying and discarding it at each (for a 287 KB
// e-CF about 0.65 MB allocated and 0.3 ms; this about 0.3 MB and 0.13 ms).
// Like io.ReadAll it holds only what has arrived, whatever the sender
// declared. On an error it returns nil and the error.
func readChunked(r io.Reader) ([]byte, error) {
	var chunks []*[]byte
	defer func() {
		for _, c := range chunks {
			readChunks.Put(c)
		}
	}()
	total, last := 0, 0
	for {
		c := readChunks.Get().(*[]byte)
		chunks = append(chunks, c)
		n, err := io.ReadFull(r, *c)
		total, last = total+n, n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		} else if err != nil {
			return nil, err
		}
	}
	data := make([]byte, 0, total)
	for _, c := range chunks[:len(chunks)-1] {
		data = append(data, *c...)
	}
	return append(data, (*chunks[len(chunks)-1])[:last]...), nil
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
// the caller signs and posts to validacioncertificado
// (sello.Reception.IssueSeed: stored nowhere, the same at any RNC).
func (s *Server) handleSemilla(w http.ResponseWriter, r *http.Request) error {
	env, rnc, err := receiverPath(r)
	if err != nil {
		return err
	}
	seed := s.reception().IssueSeed(env, rnc)
	return writeXML(w, http.StatusOK, ecf.SemillaXML(seed.Value, seed.IssuedAt))
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
// receiver issued to the tenant, unused, unexpired and validly signed by a
// signer it accepts (sello.Reception.ValidateSeed).
func (s *Server) handleValidacionCertificado(w http.ResponseWriter, r *http.Request) error {
	env, rnc, err := receiverPath(r)
	if err != nil {
		return err
	}
	data, _, err := readXMLPart(w, r, ecf.MaxReplySize)
	if err != nil {
		return err
	}
	tok, plain, err := s.reception().ValidateSeed(r.Context(), env, rnc, data)
	if err != nil {
		if sello.ErrorCodeOf(err) == sello.CodeUnauthenticated {
			s.logRefusal(r, rnc, env, "a seed", err)
		}
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
// (FACTS §2.3; sello.Reception.ReceiveECF), having stored a received
// document and its acuse first.
func (s *Server) handleRecepcion(w http.ResponseWriter, r *http.Request) error {
	env, t, err := s.receiverTenant(r)
	if err != nil {
		return err
	}
	tok, err := s.receiverToken(r, t, env)
	if err != nil {
		return err
	}
	data, filename, err := readXMLPart(w, r, ecf.MaxECFSize)
	if err != nil {
		return err
	}
	rec, err := s.reception().ReceiveECF(r.Context(), sello.ReceivedECF{Tenant: t, Environment: env, Token: tok, XML: data, FileName: filename})
	if err != nil {
		return err
	}
	if rec.Why != nil {
		s.logRefusal(r, t.RNC, env, fmt.Sprintf("an e-CF (code %d)", rec.Code), rec.Why)
		s.Metrics.ReceiptRefused(rec.Code)
	}
	return writeXML(w, http.StatusOK, rec.Acuse)
}
