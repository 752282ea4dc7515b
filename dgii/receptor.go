package dgii

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/tracing"
	"go.opentelemetry.io/otel/trace"
)

// Receptor talks to another taxpayer's receiver services (FACTS §2.2), the
// ones its DGII directory entry names: it authenticates with the sender's
// certificate when the receiver declares an authentication host (the same
// semilla → signed seed → token flow as DGII's, on the receiver's
// /fe/autenticacion paths) and posts a signed e-CF or ACECF to it. The
// receiver's token is kept until shortly before it expires, per
// environment, sender and authentication host, and concurrent sends share
// one authentication; a 401 drops it and the send is made once more with
// a new one. Nothing else is retried: the caller owns retries. It is safe
// for concurrent use; keep one per HTTP client, so that its tokens are
// reused. Give it an HTTP client that guards where it may connect (the
// receiver's URLs come from outside).
type Receptor struct {
	http *http.Client
	now  func() time.Time

	mu     sync.Mutex
	tokens map[receptorKey]*tokenSlot
	// sweepAt is the size of tokens at which the next new entry first
	// forgets the expired ones.
	sweepAt int
}

// ReceptorConfig configures a Receptor.
type ReceptorConfig struct {
	// HTTPClient sends the requests. Required.
	HTTPClient *http.Client
	// Now is the clock the receivers' tokens expire by. Default time.Now.
	Now func() time.Time
}

// NewReceptor returns a Receptor with cfg's defaults filled in.
func NewReceptor(cfg ReceptorConfig) *Receptor {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Receptor{http: cfg.HTTPClient, now: cfg.Now, tokens: map[receptorKey]*tokenSlot{}, sweepAt: receptorSweepMin}
}

// Sender is the taxpayer a Receptor sends for: its RNC in an environment,
// whose certificate signs the receivers' authentication seeds.
type Sender struct {
	Environment sello.Environment
	RNC         string
	// Sign signs a seed; a receiver that declares no authentication host
	// needs none.
	Sign Signer
}

// receptorKey is whose token a receiver issued: a sender in an
// environment, at an authentication host.
type receptorKey struct {
	env  sello.Environment
	rnc  string
	base string
}

// receptorSweepMin is the least number of cached tokens at which a new one
// first forgets the expired ones.
const receptorSweepMin = 64

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
// authentication host (from.Sign signs its seed), and returns the answer's
// body, the buyer's ARECF, as received. Errors: a *ReceptorError for an
// answer other than 2xx, the HTTP client's error when there was none.
func (p *Receptor) SendECF(ctx context.Context, from Sender, entry DirectoryEntry, fileName string, signed []byte) ([]byte, error) {
	return p.send(ctx, from, entry, "recepcion", strings.TrimRight(entry.URLRecepcion, "/")+"/fe/recepcion/api/ecf", fileName, signed)
}

// SendApproval posts the signed ACECF (file name {RNCComprador}{eNCF}.xml)
// to entry's commercial approval service,
// {URLAceptacion}/fe/aprobacioncomercial/api/ecf, authenticating as SendECF
// does, and returns nil when it answers 2xx ("satisfactorio"). Errors: a
// *ReceptorError (Op "aprobacioncomercial") for another answer, 400 being
// the receiver's "insatisfactorio"; the HTTP client's error when there was
// none.
func (p *Receptor) SendApproval(ctx context.Context, from Sender, entry DirectoryEntry, fileName string, signed []byte) error {
	if entry.URLAceptacion == "" {
		return errors.New("receiver: aprobacioncomercial: the directory entry declares no urlAceptacion")
	}
	_, err := p.send(ctx, from, entry, "aprobacioncomercial", strings.TrimRight(entry.URLAceptacion, "/")+"/fe/aprobacioncomercial/api/ecf", fileName, signed)
	return err
}

// send posts one file as the multipart part xml to url, with the sender's
// token when entry declares an authentication host. A 401 to a token drops
// it, and the file is posted once more with a new one: a 401 means the
// receiver took nothing.
func (p *Receptor) send(ctx context.Context, from Sender, entry DirectoryEntry, op, url, fileName string, content []byte) ([]byte, error) {
	body, ct, err := multipartBody(&filePart{name: fileName, content: content})
	if err != nil {
		return nil, fmt.Errorf("receiver: %s: build body: %w", op, err)
	}
	base := strings.TrimRight(entry.URLOpcional, "/")
	if base == "" {
		return p.do(ctx, op, http.MethodPost, url, body, ct, "")
	}
	slot := p.slot(receptorKey{from.Environment, from.RNC, base})
	auth := func(ctx context.Context) (string, time.Time, error) { return p.authenticate(ctx, base, from.Sign) }
	for retried := false; ; retried = true {
		token, err := slot.get(ctx, p.now, auth)
		if err != nil {
			return nil, err
		}
		b, err := p.do(ctx, op, http.MethodPost, url, body, ct, token)
		var re *ReceptorError
		if !retried && errors.As(err, &re) && re.Status == http.StatusUnauthorized {
			slot.drop(token)
			continue
		}
		return b, err
	}
}

// slot returns the token slot of k, made empty on first use. Adding one to
// a map that has grown to sweepAt first forgets the slots whose token has
// expired, so the map holds about the senders and receivers of the last
// token lifetime.
func (p *Receptor) slot(k receptorKey) *tokenSlot {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.tokens[k]; ok {
		return e
	}
	if len(p.tokens) >= p.sweepAt {
		now := p.now()
		for k, e := range p.tokens {
			if e.idle(now) {
				delete(p.tokens, k)
			}
		}
		p.sweepAt = max(2*len(p.tokens), receptorSweepMin)
	}
	e := &tokenSlot{}
	p.tokens[k] = e
	return e
}

// authenticate trades a signed seed of the receiver at base for its token,
// and returns it with when to renew it.
func (p *Receptor) authenticate(ctx context.Context, base string, sign Signer) (string, time.Time, error) {
	if sign == nil {
		return "", time.Time{}, errors.New("receiver: authenticate: no signer")
	}
	b, err := p.do(ctx, "semilla", http.MethodGet, base+"/fe/autenticacion/api/semilla", nil, "", "")
	if err != nil {
		return "", time.Time{}, err
	}
	seed, err := compactSeed(b)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("receiver: semilla: %w", err)
	}
	signed, err := sign(ctx, seed)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("receiver: sign semilla: %w", err)
	}
	body, ct, err := multipartBody(&filePart{name: "semilla.xml", content: signed})
	if err != nil {
		return "", time.Time{}, fmt.Errorf("receiver: validacioncertificado: build body: %w", err)
	}
	b, err = p.do(ctx, "validacioncertificado", http.MethodPost, base+"/fe/autenticacion/api/validacioncertificado", body, ct, "")
	if err != nil {
		return "", time.Time{}, err
	}
	token, expira, expedido, err := parseToken(b)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("receiver: validacioncertificado: %w", err)
	}
	return token, renewAt(p.now(), expira, expedido), nil
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
