package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Environment is one of DGII's three environments, spelled as in the API's
// paths. Events spell it in lower case (testecf, certecf, ecf, spec §2.3):
// decoding an Event turns either spelling into these constants, so
// ev.Environment == EnvTest holds for an event carrying "testecf".
type Environment string

// The three environments.
const (
	EnvTest Environment = "TesteCF" // pre-certification; keys sk_testecf_…
	EnvCert Environment = "CerteCF" // certification; keys sk_certecf_…
	EnvProd Environment = "eCF"     // production; keys sk_ecf_…
)

// ParseEnvironment returns the environment named s in any case: the API
// paths' TesteCF, the events' testecf, TESTECF. It fails on any other name.
func ParseEnvironment(s string) (Environment, error) {
	for _, e := range []Environment{EnvTest, EnvCert, EnvProd} {
		if strings.EqualFold(s, string(e)) {
			return e, nil
		}
	}
	return "", fmt.Errorf("client: unknown environment %q: use TesteCF, CerteCF or eCF (in any case)", s)
}

// UnmarshalText reads an environment in either spelling (TesteCF or
// testecf). A name it does not know is kept as it is, so that an event of a
// newer server still decodes.
func (e *Environment) UnmarshalText(b []byte) error {
	if env, err := ParseEnvironment(string(b)); err == nil {
		*e = env
	} else {
		*e = Environment(b)
	}
	return nil
}

// MarshalText writes the environment as events spell it (Slug), so that an
// Event encodes as it came.
func (e Environment) MarshalText() ([]byte, error) { return []byte(e.Slug()), nil }

// Slug is the environment as events, key prefixes and DGII's URLs spell
// it: testecf, certecf or ecf.
func (e Environment) Slug() string { return strings.ToLower(string(e)) }

// Version is the SDK's version, sent in the User-Agent.
const Version = "1.0.0"

// EnvironmentOfKey returns the environment an API key belongs to, from its
// prefix (sk_testecf_, sk_certecf_, sk_ecf_), and false when the prefix is
// none of those.
func EnvironmentOfKey(apiKey string) (Environment, bool) {
	switch {
	case strings.HasPrefix(apiKey, "sk_testecf_"):
		return EnvTest, true
	case strings.HasPrefix(apiKey, "sk_certecf_"):
		return EnvCert, true
	case strings.HasPrefix(apiKey, "sk_ecf_"):
		return EnvProd, true
	}
	return "", false
}

// Client calls Sello's API with one API key. It is safe for concurrent use.
type Client struct {
	apiKey  string
	baseURL *url.URL
	env     Environment
	http    *http.Client
	retry   RetryPolicy
	sleep   func(ctx context.Context, d time.Duration) error
	now     func() time.Time
	ua      string
}

// Option configures a Client.
type Option func(*Client) error

// defaultTransport is Go's default transport keeping 64 idle connections
// per host.
func defaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}

// WithHTTPClient sets the http.Client requests go through (default: one with
// a 30-second timeout per attempt on Go's default transport keeping up to 64
// idle connections to the API, so that concurrent callers reuse their
// connections; Go's own default keeps 2 and dials again for the rest).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("client: nil http.Client")
		}
		c.http = hc
		return nil
	}
}

// WithRetryPolicy sets how failed attempts are retried (default
// DefaultRetryPolicy). MaxAttempts 1 disables retries.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) error {
		if p.MaxAttempts < 1 || p.BaseDelay < 0 || p.MaxDelay < p.BaseDelay {
			return fmt.Errorf("client: retry policy %+v: want MaxAttempts ≥ 1 and 0 ≤ BaseDelay ≤ MaxDelay", p)
		}
		c.retry = p
		return nil
	}
}

// WithEnvironment sets the environment, overriding the one the key's prefix
// names; either spelling (TesteCF or testecf) is taken. The API refuses a key of another environment (403
// ENVIRONMENT_MISMATCH).
func WithEnvironment(env Environment) Option {
	return func(c *Client) error {
		e, err := ParseEnvironment(string(env))
		c.env = e
		return err
	}
}

// WithSleep replaces the wait between attempts (for tests). sleep must return
// ctx.Err() when ctx ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) error { c.sleep = sleep; return nil }
}

// WithClock replaces the clock that reads Retry-After dates (for tests).
func WithClock(now func() time.Time) Option {
	return func(c *Client) error { c.now = now; return nil }
}

// WithUserAgent adds product to the User-Agent, before the SDK's own.
func WithUserAgent(product string) Option {
	return func(c *Client) error { c.ua = product + " " + c.ua; return nil }
}

// New returns a client of the Sello service at baseURL (scheme, host, port
// and optional path prefix, e.g. "https://sello.example.com") that
// authenticates with apiKey. There is no default address: a client is always
// pointed at a deployment on purpose. The environment follows from the
// key's prefix unless WithEnvironment sets it. It fails on an empty or
// non-http(s) baseURL, an empty key, a key whose environment it cannot tell,
// or a bad option.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if apiKey == "" {
		return nil, errors.New("client: empty API key")
	}
	c := &Client{
		apiKey:  apiKey,
		baseURL: base,
		http:    &http.Client{Timeout: 30 * time.Second, Transport: defaultTransport()},
		retry:   DefaultRetryPolicy,
		sleep:   sleepContext,
		now:     time.Now,
		ua:      "sello-go/" + Version,
	}
	c.env, _ = EnvironmentOfKey(apiKey)
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if c.env == "" {
		return nil, errors.New("client: cannot tell the key's environment from its prefix (sk_testecf_, sk_certecf_, sk_ecf_): use WithEnvironment")
	}
	return c, nil
}

// parseBaseURL checks New's baseURL.
func parseBaseURL(base string) (*url.URL, error) {
	if base == "" {
		return nil, errors.New(`client: empty base URL: pass your Sello service's address to New, e.g. "https://sello.example.com" ("http://localhost:8080" for sello serve --demo)`)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q is not an http(s) URL", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// Environment returns the environment the client's requests go to.
func (c *Client) Environment() Environment { return c.env }

// request is one logical API call, sent once per attempt.
type request struct {
	method string
	path   string // after /{env}
	query  url.Values
	body   []byte // nil for none
	// contentType is the body's media type; application/json when empty.
	contentType string
	header      http.Header
	accept      string
}

// response is the answer of the attempt that succeeded.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends req, retrying as the policy allows, and returns the first 2xx
// answer. Anything else is an *Error (API errors), or a network or context
// error.
func (c *Client) do(ctx context.Context, req request) (*response, error) {
	var lastErr error
	for attempt := 1; ; attempt++ {
		resp, err := c.attempt(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, joinContext(ctx, err)
		}
		lastErr = err
		wait, retry := c.retryDelay(attempt, err)
		if !retry {
			return nil, lastErr
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, joinContext(ctx, lastErr)
		}
	}
}

// joinContext reports the context's end with the last attempt's error, so
// that both errors.Is(err, context.Canceled) and errors.As(err, **Error) see
// through it.
func joinContext(ctx context.Context, last error) error {
	if errors.Is(last, ctx.Err()) {
		return last
	}
	return fmt.Errorf("%w (last attempt: %w)", ctx.Err(), last)
}

// attempt sends req once.
func (c *Client) attempt(ctx context.Context, req request) (*response, error) {
	u := *c.baseURL
	u.Path += "/" + string(c.env) + req.path
	u.RawQuery = req.query.Encode()
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("sello: build request: %w", err)
	}
	for k, v := range req.header {
		hr.Header[k] = v
	}
	hr.Header.Set("X-API-KEY", c.apiKey)
	hr.Header.Set("User-Agent", c.ua)
	hr.Header.Set("Accept", "application/json")
	if req.accept != "" {
		hr.Header.Set("Accept", req.accept)
	}
	if req.body != nil {
		ct := req.contentType
		if ct == "" {
			ct = "application/json"
		}
		hr.Header.Set("Content-Type", ct)
	}
	hresp, err := c.http.Do(hr)
	if err != nil {
		return nil, &networkError{err: err}
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxResponseBytes))
	if err != nil {
		return nil, &networkError{err: fmt.Errorf("read response: %w", err)}
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return nil, c.parseError(hresp, data)
	}
	return &response{status: hresp.StatusCode, header: hresp.Header, body: data}, nil
}

// maxResponseBytes bounds what is read of an answer (PDFs included).
const maxResponseBytes = 64 << 20

// networkError is a failed attempt that got no HTTP answer.
type networkError struct{ err error }

func (e *networkError) Error() string { return "sello: " + e.err.Error() }
func (e *networkError) Unwrap() error { return e.err }

// decode unmarshals a success body into v.
func decode(resp *response, v any) error {
	if err := json.Unmarshal(resp.body, v); err != nil {
		return fmt.Errorf("sello: decode answer (status %d): %w", resp.status, err)
	}
	return nil
}

// newIdempotencyKey returns a random UUID v4.
func newIdempotencyKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("sello: idempotency key: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// randInt63n returns a uniform random number in [0, n).
func randInt63n(n int64) int64 {
	if n <= 0 {
		return 0
	}
	v, err := rand.Int(rand.Reader, big.NewInt(n))
	if err != nil {
		return n / 2
	}
	return v.Int64()
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date; 0 when
// absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
