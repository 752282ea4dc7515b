package dgii

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/beevik/etree"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/xmlchar"
)

// URLs are the bases of DGII's two hosts, without the environment segment.
// Against the simulator both are the simulator's base.
type URLs struct {
	// ECF is the base of every service but the consumer-invoice summaries,
	// e.g. https://ecf.dgii.gov.do.
	ECF string
	// FC is the base of the consumer-invoice summary services (recepción
	// FC), e.g. https://fc.dgii.gov.do.
	FC string
}

// LiveURLs returns DGII's real hosts.
func LiveURLs() URLs {
	return URLs{ECF: "https://ecf.dgii.gov.do", FC: "https://fc.dgii.gov.do"}
}

// Defaults of Config.
const (
	DefaultTimeout = 30 * time.Second
	DefaultRetries = 3
	// TokenMargin is how long before its expiry a token is renewed.
	TokenMargin = time.Minute
)

// Config configures a Client. The zero value of every field but URLs means
// its default.
type Config struct {
	// URLs are the hosts to talk to: LiveURLs, or the simulator's.
	URLs URLs
	// HTTPClient sends the requests. Default: a client with a 30 s overall
	// timeout on NewTransport. Give one with a Timeout (a request without
	// one can hang for as long as DGII does) and, under load, a transport
	// that keeps enough idle connections (NewTransport does).
	HTTPClient *http.Client
	// Now is the clock tokens expire by. Default time.Now.
	Now func() time.Time
	// Retries is how many times an idempotent call (semilla, consultas,
	// directorio) is retried after a network error, a 5xx or a 429.
	// Default 3; negative means none. Sends are never retried.
	Retries int
	// Backoff is how long to wait before retry attempt (1, 2, …). Default
	// DefaultBackoff.
	Backoff func(attempt int) time.Duration
	// OnCall, when set, is told of every call once it is over (its
	// retries and re-authentication included), in the caller's goroutine:
	// the wiring points it at the metrics.
	OnCall func(Call)
}

// DefaultBackoff waits 250 ms before the first retry, doubling each time up
// to 8 s, with "equal jitter": half the delay fixed, half random.
func DefaultBackoff(attempt int) time.Duration {
	d := 250 * time.Millisecond
	for i := 1; i < attempt && d < 8*time.Second; i++ {
		d *= 2
	}
	d = min(d, 8*time.Second)
	return d/2 + rand.N(d/2+1)
}

// MaxIdleConns is how many idle connections NewTransport keeps to each of
// DGII's hosts: about as many as calls run at once (the job workers), so
// that a busy Sello reuses its connections rather than dialing (and, to
// DGII, shaking TLS hands) again after most calls, as Go's default of 2
// does (the figures are in docs/benchmarks.md).
const MaxIdleConns = 128

// WriteBufferSize is the transport's buffer for a request's header and
// body: a signed e-CF of a few items (10 KB) goes out in one write instead
// of one per 4 KiB, Go's default (three system calls a send before). Each
// open connection holds one, so it is not larger.
const WriteBufferSize = 16 << 10

// NewTransport returns the transport for DGII's services: Go's default
// (proxy from the environment, dial and TLS handshake timeouts, HTTP/2)
// with TLS 1.2 or later, MaxIdleConns idle connections per host and a
// WriteBufferSize buffer for requests.
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 2 * MaxIdleConns
	t.MaxIdleConnsPerHost = MaxIdleConns
	t.WriteBufferSize = WriteBufferSize
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	t.TLSClientConfig.MinVersion = tls.VersionTLS12
	return t
}

// Client talks to DGII's web services over HTTP. It is safe for concurrent
// use and holds the token cache of every taxpayer it serves; make one per
// process and a Session per taxpayer and environment.
type Client struct {
	urls    URLs
	http    *http.Client
	now     func() time.Time
	retries int
	backoff func(int) time.Duration
	onCall  func(Call)

	mu     sync.Mutex
	tokens map[tokenKey]*tokenSlot
}

// New returns a client with cfg's defaults filled in.
func New(cfg Config) *Client {
	c := &Client{
		urls:    cfg.URLs,
		http:    cfg.HTTPClient,
		now:     cfg.Now,
		retries: cfg.Retries,
		backoff: cfg.Backoff,
		onCall:  cfg.OnCall,
		tokens:  map[tokenKey]*tokenSlot{},
	}
	c.urls.ECF = strings.TrimRight(c.urls.ECF, "/")
	c.urls.FC = strings.TrimRight(c.urls.FC, "/")
	if c.urls.FC == "" {
		c.urls.FC = c.urls.ECF
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: DefaultTimeout, Transport: NewTransport()}
	}
	if c.now == nil {
		c.now = time.Now
	}
	switch {
	case c.retries == 0:
		c.retries = DefaultRetries
	case c.retries < 0:
		c.retries = 0
	}
	if c.backoff == nil {
		c.backoff = DefaultBackoff
	}
	return c
}

// Signer signs an XML document with the taxpayer's certificate in DGII's
// signature profile (enveloped XMLDSig, RSA-SHA256) and returns the signed
// document. The caller supplies one per tenant; an error from it is
// returned wrapped, so errors.As finds the signer's own error.
type Signer func(ctx context.Context, xml []byte) ([]byte, error)

// Session is the client bound to one taxpayer (RNC) in one environment. Its
// token is cached in the Client, shared by every Session of the same RNC
// and environment. It is safe for concurrent use.
type Session struct {
	c    *Client
	env  sello.Environment
	rnc  string
	sign Signer
	slot *tokenSlot
}

// Session returns the client bound to the taxpayer rnc in env, signing its
// authentication seeds with sign.
func (c *Client) Session(env sello.Environment, rnc string, sign Signer) *Session {
	k := tokenKey{env, rnc}
	c.mu.Lock()
	e, ok := c.tokens[k]
	if !ok {
		e = &tokenSlot{}
		c.tokens[k] = e
	}
	c.mu.Unlock()
	return &Session{c: c, env: env, rnc: rnc, sign: sign, slot: e}
}

// Environment is the session's environment.
func (s *Session) Environment() sello.Environment { return s.env }

// RNC is the session's taxpayer.
func (s *Session) RNC() string { return s.rnc }

type tokenKey struct {
	env sello.Environment
	rnc string
}

// authError marks an error of the authentication step, which the call
// retry loop does not retry again (authenticate retries its own GET).
type authError struct{ err error }

func (e *authError) Error() string { return e.err.Error() }
func (e *authError) Unwrap() error { return e.err }

// token returns a valid token, authenticating when there is none or it is
// within TokenMargin of expiring. Concurrent callers share one
// authentication; its failure is an *authError.
func (s *Session) token(ctx context.Context) (string, error) {
	return s.slot.get(ctx, s.c.now, func(ctx context.Context) (string, time.Time, error) {
		token, renew, err := s.authenticate(ctx)
		if err != nil {
			return "", time.Time{}, &authError{err}
		}
		return token, renew, nil
	})
}

// dropToken forgets token after DGII refused it, unless another caller
// already replaced it.
func (s *Session) dropToken(token string) { s.slot.drop(token) }

// authenticate runs DGII's flow: get a seed, sign it, trade it for a token.
func (s *Session) authenticate(ctx context.Context) (string, time.Time, error) {
	resp, err := s.do(ctx, request{
		op: "semilla", method: http.MethodGet, base: s.c.urls.ECF,
		path: "autenticacion/api/autenticacion/semilla", idempotent: true,
	})
	if err != nil {
		return "", time.Time{}, err
	}
	seed, err := compactSeed(resp.body)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("dgii: semilla: %w", err)
	}
	if s.sign == nil {
		return "", time.Time{}, errors.New("dgii: authenticate: the session has no signer")
	}
	signed, err := s.sign(ctx, seed)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("dgii: sign semilla: %w", err)
	}
	// validarsemilla is a POST but harmless to repeat; it is not retried
	// here because its seed is single-use: a new attempt starts over.
	resp, err = s.do(ctx, request{
		op: "validarsemilla", method: http.MethodPost, base: s.c.urls.ECF,
		path: "autenticacion/api/autenticacion/validarsemilla",
		file: &filePart{name: "semilla.xml", content: signed},
	})
	if err != nil {
		var de *Error
		if errors.As(err, &de) && de.Status >= 400 && de.Status < 500 {
			return "", time.Time{}, fmt.Errorf("%w: %w", ErrUnauthorized, err)
		}
		// A send's uncertainty does not matter for a token (at worst DGII
		// issued one nobody uses), and must not make the caller's call look
		// uncertain: report DGII as unavailable.
		if errors.Is(err, ErrUncertain) {
			err = fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return "", time.Time{}, err
	}
	token, expira, expedido, err := parseToken(resp.body)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("dgii: validarsemilla: %w", err)
	}
	return token, renewAt(s.c.now(), expira, expedido), nil
}

// compactSeed checks that b is DGII's SemillaModel and removes its
// whitespace-only text: DGII pretty-prints the seed, and a signature over
// the indented form is refused ("Firma del certificado invalida"). A byte
// order mark before it is dropped.
func compactSeed(b []byte) ([]byte, error) {
	b = xmlchar.TrimBOM(b)
	root, _, err := decodeXML(b)
	if err != nil {
		return nil, err
	}
	if root != "SemillaModel" {
		return nil, fmt.Errorf("root element is %q, not SemillaModel", root)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(b); err != nil {
		return nil, err
	}
	doc.Unindent()
	return doc.WriteToBytes()
}
