package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sello-do/sello"
)

// maxDrain is how much more of an answer is read and thrown away so the
// connection can be reused; a longer answer closes the connection.
const maxDrain = 64 << 10

// ErrorClass says why an attempt failed; "" is success.
type ErrorClass string

// The error classes of an attempt.
const (
	// ClassDNS: the host name did not resolve.
	ClassDNS ErrorClass = "dns"
	// ClassConnect: no HTTP answer arrived: the connection was refused,
	// reset or closed, or the other side did not speak HTTP.
	ClassConnect ErrorClass = "connect"
	// ClassTLS: the TLS handshake failed (untrusted or expired
	// certificate, wrong host name, no common version or cipher).
	ClassTLS ErrorClass = "tls"
	// ClassTimeout: the attempt ran out of time (Options.Timeout) before
	// the answer's headers arrived, or its context was canceled.
	ClassTimeout ErrorClass = "timeout"
	// ClassBlocked: the SSRF policy refused the target; no connection was
	// made.
	ClassBlocked ErrorClass = "blocked"
	// ClassHTTPStatus: the receiver answered with a status other than 2xx,
	// redirects included.
	ClassHTTPStatus ErrorClass = "http_status"
)

// Request is one delivery attempt to make.
type Request struct {
	// URL is the endpoint's URL, validated by ValidateURL when it was
	// configured.
	URL string
	// EventID and EventType go to Sello-Event-Id and Sello-Event-Type; they
	// equal the body's id and type.
	EventID   string
	EventType string
	// Body is the event's JSON (spec §2.3), sent byte for byte.
	Body []byte
	// Secrets are the endpoint's active secrets, newest first.
	Secrets []string
	// Version is Sello's version, for User-Agent: Sello-Webhooks/<Version>;
	// empty means "dev".
	Version string
	// Now is the attempt's time, signed as t. Zero means time.Now(). Each
	// attempt is signed with its own time, never the event's.
	Now time.Time
}

// Attempt is the record of one delivery attempt, for the delivery log.
type Attempt struct {
	URL string
	// At is the attempt's time, the t of its signature.
	At time.Time
	// RequestHeader and RequestBody are what was sent.
	RequestHeader http.Header
	RequestBody   []byte
	// Status is the receiver's HTTP status; 0 when none arrived.
	Status         int
	ResponseHeader http.Header
	// ResponseBody is the first sello.WebhookResponseBodyLimit bytes of the answer;
	// ResponseTruncated says there was more.
	ResponseBody      []byte
	ResponseTruncated bool
	// RetryAfter is the receiver's Retry-After on a 429 or 503, 0 if absent.
	RetryAfter time.Duration
	// Latency runs from the start of the attempt to the end of reading the
	// kept part of the answer, or to the failure.
	Latency time.Duration
	// RemoteIP is the address of the connection the request went out on
	// ("" when no connection was made).
	RemoteIP string
	// Class is "" on success (any 2xx), else why the attempt failed.
	Class ErrorClass
	// Message says what happened, for the tenant; "" on success.
	Message string
}

// Success reports whether the receiver answered 2xx.
func (a *Attempt) Success() bool { return a.Class == "" }

// Gone reports whether the receiver answered 410 Gone: the caller disables
// the endpoint and stops retrying.
func (a *Attempt) Gone() bool { return a.Status == http.StatusGone }

// Retryable reports whether the delivery should be attempted again (if the
// schedule has attempts left): every failure except 410. Blocked targets
// are retried too: the name may resolve to a public address later.
func (a *Attempt) Retryable() bool { return !a.Success() && !a.Gone() }

// Deliver makes one attempt to deliver r and reports what happened; it
// never retries and never follows a redirect. The request carries exactly
// Content-Type: application/json, User-Agent: Sello-Webhooks/<version>,
// Sello-Event-Id, Sello-Event-Type and Sello-Signature (signed with
// r.Now), plus the Host and Content-Length of the protocol. If ctx is
// canceled the attempt is classed timeout; callers shutting down should
// check ctx.Err() and not count it.
func (c *Client) Deliver(ctx context.Context, r Request) (a Attempt) {
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	version := r.Version
	if version == "" {
		version = "dev"
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Sello-Webhooks/"+version)
	h.Set("Sello-Event-Id", r.EventID)
	h.Set("Sello-Event-Type", r.EventType)
	h.Set("Sello-Signature", Sign(r.Secrets, now, r.Body))
	a = Attempt{URL: r.URL, At: now, RequestHeader: h.Clone(), RequestBody: r.Body}

	start := time.Now()
	defer func() { a.Latency = time.Since(start) }()

	if err := checkURL(r.URL); err != nil {
		a.Class, a.Message = ClassBlocked, err.Error()
		return a
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	var mu sync.Mutex
	var remote string
	var tlsErr error
	trace := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if ap, err := netip.ParseAddrPort(info.Conn.RemoteAddr().String()); err == nil {
				mu.Lock()
				remote = ap.Addr().Unmap().String()
				mu.Unlock()
			}
		},
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			if err != nil {
				mu.Lock()
				tlsErr = err
				mu.Unlock()
			}
		},
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		a.Class, a.Message = ClassBlocked, "blocked: the URL is not valid"
		return a
	}
	req.Header = h

	resp, err := c.hc.Do(req)
	mu.Lock()
	a.RemoteIP = remote
	tlsFailed := tlsErr
	mu.Unlock()
	if err != nil {
		a.Class, a.Message = classify(ctx, err, tlsFailed)
		return a
	}
	a.Status = resp.StatusCode
	a.ResponseHeader = resp.Header.Clone()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, sello.WebhookResponseBodyLimit+1))
	if len(body) > sello.WebhookResponseBodyLimit {
		body, a.ResponseTruncated = body[:sello.WebhookResponseBodyLimit], true
	}
	a.ResponseBody = body
	io.CopyN(io.Discard, resp.Body, maxDrain)
	resp.Body.Close()

	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		a.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		a.Class = ClassHTTPStatus
		a.Message = fmt.Sprintf("the endpoint answered %s; redirects are not followed", resp.Status)
		if loc := resp.Header.Get("Location"); loc != "" {
			a.Message += fmt.Sprintf(" (Location: %.200q)", loc)
		}
	default:
		a.Class = ClassHTTPStatus
		a.Message = "the endpoint answered " + resp.Status
	}
	return a
}

// checkURL refuses, before any connection, a URL whose form the endpoint
// policy (sello.CheckWebhookURL) refuses in every environment: a URL stored
// before a rule changed, or written to the store by hand.
func checkURL(raw string) error {
	if err := sello.CheckWebhookURL(raw, sello.EnvTest); err != nil {
		return &BlockedError{Reason: strings.TrimPrefix(sello.ErrorMessageOf(err), "Webhook URL: ")}
	}
	return nil
}

// classify turns the error of a request with no answer into a class and a
// message.
func classify(ctx context.Context, err error, tlsErr error) (ErrorClass, string) {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // "Post \"https://…\": " repeats the URL the log shows
	}
	var be *BlockedError
	var de *net.DNSError
	var ne net.Error
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.As(err, &be):
		return ClassBlocked, be.Error()
	case errors.As(err, &de):
		return ClassDNS, err.Error()
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return ClassTimeout, err.Error()
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return ClassTimeout, "canceled: " + err.Error()
	case tlsErr != nil:
		return ClassTLS, tlsErr.Error()
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr),
		errors.As(err, &invalidCert), errors.As(err, &recordErr), errors.As(err, &alert):
		return ClassTLS, err.Error()
	}
	return ClassConnect, err.Error()
}

// parseRetryAfter reads a Retry-After value, in seconds or an HTTP date; 0
// when absent, malformed or past.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}
