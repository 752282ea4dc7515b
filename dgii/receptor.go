package dgii

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/sello-do/sello/internal/tracing"
	"go.opentelemetry.io/otel/trace"
)

// Receptor talks to another taxpayer's receiver services (FACTS §2.2), the
// ones its DGII directory entry names: it authenticates with the sender's
// certificate when the receiver declares an authentication host (the same
// semilla → signed seed → token flow as DGII's, on the receiver's
// /fe/autenticacion paths) and posts a signed e-CF to its reception
// service. It makes one exchange per call and retries nothing: the caller
// owns retries. Give it an HTTP client that guards where it may connect
// (the receiver's URLs come from outside).
type Receptor struct {
	http *http.Client
}

// NewReceptor returns a Receptor sending through hc.
func NewReceptor(hc *http.Client) *Receptor { return &Receptor{http: hc} }

// ReceptorError is a receiver's answer other than 2xx.
type ReceptorError struct {
	Op     string // "semilla", "validacioncertificado", "recepcion", "aprobacioncomercial"
	Status int
	// Body is the start of the answer, for the record.
	Body string
}

// Error implements the error interface.
func (e *ReceptorError) Error() string {
	msg := fmt.Sprintf("receiver: %s: HTTP %d", e.Op, e.Status)
	if b := strings.TrimSpace(e.Body); b != "" {
		msg += ": " + b
	}
	return msg
}

// receptorBodyLimit bounds what is read of a receiver's answer: an ARECF is
// a few KB with its signature.
const receptorBodyLimit = 1 << 20

// SendECF posts the signed e-CF (file name {RNCEmisor}{eNCF}.xml) to
// entry's reception service, {URLRecepcion}/fe/recepcion/api/ecf, with a
// Bearer token from {URLOpcional}/fe/autenticacion when entry declares an
// authentication host (sign signs its seed), and returns the answer's body,
// the buyer's ARECF, as received. Errors: a *ReceptorError for an answer
// other than 2xx, the HTTP client's error when there was none.
func (p *Receptor) SendECF(ctx context.Context, entry DirectoryEntry, fileName string, signed []byte, sign Signer) ([]byte, error) {
	token, err := p.token(ctx, entry, sign)
	if err != nil {
		return nil, err
	}
	return p.post(ctx, "recepcion", strings.TrimRight(entry.URLRecepcion, "/")+"/fe/recepcion/api/ecf", fileName, signed, token)
}

// SendApproval posts the signed ACECF (file name {RNCComprador}{eNCF}.xml)
// to entry's commercial approval service,
// {URLAceptacion}/fe/aprobacioncomercial/api/ecf, authenticating as SendECF
// does, and returns nil when it answers 2xx ("satisfactorio"). Errors: a
// *ReceptorError (Op "aprobacioncomercial") for another answer, 400 being
// the receiver's "insatisfactorio"; the HTTP client's error when there was
// none.
func (p *Receptor) SendApproval(ctx context.Context, entry DirectoryEntry, fileName string, signed []byte, sign Signer) error {
	if entry.URLAceptacion == "" {
		return errors.New("receiver: aprobacioncomercial: the directory entry declares no urlAceptacion")
	}
	token, err := p.token(ctx, entry, sign)
	if err != nil {
		return err
	}
	_, err = p.post(ctx, "aprobacioncomercial", strings.TrimRight(entry.URLAceptacion, "/")+"/fe/aprobacioncomercial/api/ecf", fileName, signed, token)
	return err
}

// token is a Bearer token from entry's authentication host, "" when it
// declares none.
func (p *Receptor) token(ctx context.Context, entry DirectoryEntry, sign Signer) (string, error) {
	if base := strings.TrimRight(entry.URLOpcional, "/"); base != "" {
		return p.authenticate(ctx, base, sign)
	}
	return "", nil
}

// post sends one file as the multipart part xml to url.
func (p *Receptor) post(ctx context.Context, op, url, fileName string, content []byte, token string) ([]byte, error) {
	body, ct, err := multipartBody(&filePart{name: fileName, content: content})
	if err != nil {
		return nil, fmt.Errorf("receiver: %s: build body: %w", op, err)
	}
	return p.do(ctx, op, http.MethodPost, url, body, ct, token)
}

// authenticate trades a signed seed of the receiver for its token.
func (p *Receptor) authenticate(ctx context.Context, base string, sign Signer) (string, error) {
	if sign == nil {
		return "", errors.New("receiver: authenticate: no signer")
	}
	b, err := p.do(ctx, "semilla", http.MethodGet, base+"/fe/autenticacion/api/semilla", nil, "", "")
	if err != nil {
		return "", err
	}
	seed, err := compactSeed(b)
	if err != nil {
		return "", fmt.Errorf("receiver: semilla: %w", err)
	}
	signed, err := sign(ctx, seed)
	if err != nil {
		return "", fmt.Errorf("receiver: sign semilla: %w", err)
	}
	body, ct, err := multipartBody(&filePart{name: "semilla.xml", content: signed})
	if err != nil {
		return "", fmt.Errorf("receiver: validacioncertificado: build body: %w", err)
	}
	b, err = p.do(ctx, "validacioncertificado", http.MethodPost, base+"/fe/autenticacion/api/validacioncertificado", body, ct, "")
	if err != nil {
		return "", err
	}
	token, _, _, err := parseToken(b)
	if err != nil {
		return "", fmt.Errorf("receiver: validacioncertificado: %w", err)
	}
	return token, nil
}

// do makes one exchange (call) in a span "receptor OP", child of ctx's
// span when its trace is recorded (docs/tracing.md).
func (p *Receptor) do(ctx context.Context, op, method, url string, body []byte, contentType, token string) ([]byte, error) {
	ctx, span := tracing.Start(ctx, "receptor "+op, trace.WithSpanKind(trace.SpanKindClient))
	if !span.IsRecording() {
		return p.call(ctx, op, method, url, body, contentType, token)
	}
	span.SetAttributes(AttrService.String(op))
	b, err := p.call(ctx, op, method, url, body, contentType, token)
	endSpan(span, 0, err) // a ReceptorError carries the status of a refusal
	return b, err
}

// call makes one exchange and returns a 2xx answer's body.
func (p *Receptor) call(ctx context.Context, op, method, url string, body []byte, contentType, token string) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("receiver: %s: %w", op, err)
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("receiver: %s: %w", op, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, receptorBodyLimit))
	if err != nil {
		return nil, fmt.Errorf("receiver: %s: read answer (HTTP %d): %w", op, resp.StatusCode, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &ReceptorError{Op: op, Status: resp.StatusCode, Body: string(b[:min(len(b), maxErrorBody)])}
	}
	return b, nil
}
