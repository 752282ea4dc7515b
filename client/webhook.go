package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of a webhook delivery.
const (
	HeaderSignature = "Sello-Signature"
	HeaderEventID   = "Sello-Event-Id"
	HeaderEventType = "Sello-Event-Type"
)

// Tolerance is how far a delivery's t may be from the receiver's clock, in
// either direction (spec §6.2, §8).
const Tolerance = 300 * time.Second

// Reasons a delivery fails verification. Each is returned wrapped; test with
// errors.Is.
var (
	// ErrNoSignature: the header is missing or carries no v1 signature.
	ErrNoSignature = errors.New("sello webhook: no v1 signature")
	// ErrMalformedHeader: the header is not a list of key=value pairs, or
	// repeats t.
	ErrMalformedHeader = errors.New("sello webhook: malformed signature header")
	// ErrInvalidTimestamp: t is missing or not a decimal integer.
	ErrInvalidTimestamp = errors.New("sello webhook: missing or invalid timestamp")
	// ErrTimestampOutOfTolerance: t differs from now by more than Tolerance.
	ErrTimestampOutOfTolerance = errors.New("sello webhook: timestamp outside the tolerance")
	// ErrSignatureMismatch: no v1 matches any secret.
	ErrSignatureMismatch = errors.New("sello webhook: signature mismatch")
)

// Signature is a parsed Sello-Signature header.
type Signature struct {
	// Timestamp is t, in Unix seconds.
	Timestamp int64
	// V1 are the v1 signatures, hex as sent, in header order. Other
	// schemes are ignored (never trust a scheme you do not verify).
	V1 []string
}

// ParseSignatureHeader parses "t=<unix>,v1=<hex>[,v1=<hex>…]". Entries of
// other schemes (v0=…) are skipped. Returns ErrNoSignature for an empty
// header or one without v1, ErrMalformedHeader for an entry that is not
// key=value or a repeated t, and ErrInvalidTimestamp when t is missing or
// not a decimal integer.
func ParseSignatureHeader(header string) (*Signature, error) {
	if strings.TrimSpace(header) == "" {
		return nil, ErrNoSignature
	}
	var s Signature
	var haveT bool
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: entry %q is not key=value", ErrMalformedHeader, truncate(part))
		}
		switch k {
		case "t":
			if haveT {
				return nil, fmt.Errorf("%w: t given twice", ErrMalformedHeader)
			}
			haveT = true
			ts, err := parseTimestamp(v)
			if err != nil {
				return nil, err
			}
			s.Timestamp = ts
		case "v1":
			s.V1 = append(s.V1, v)
		}
	}
	if !haveT {
		return nil, fmt.Errorf("%w: no t", ErrInvalidTimestamp)
	}
	if len(s.V1) == 0 {
		return nil, ErrNoSignature
	}
	return &s, nil
}

// parseTimestamp reads t: decimal digits only (no sign, no spaces), as an
// int64.
func parseTimestamp(v string) (int64, error) {
	if v == "" || len(v) > 18 {
		return 0, fmt.Errorf("%w: t=%q", ErrInvalidTimestamp, truncate(v))
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, fmt.Errorf("%w: t=%q", ErrInvalidTimestamp, truncate(v))
		}
	}
	return strconv.ParseInt(v, 10, 64) // ≤ 18 digits: cannot overflow.
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Sign returns the v1 signature of a delivery: the lowercase hex of
// HMAC-SHA256, keyed with secret, over "<t>.<body>".
func Sign(secret string, t int64, body []byte) string {
	return hex.EncodeToString(mac(secret, t, body))
}

func mac(secret string, t int64, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(strconv.AppendInt(nil, t, 10))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// SignatureHeader returns the Sello-Signature value of a delivery of body at
// t: "t=<unix>,v1=<hex>", with one v1 per secret in the order given (newest
// first during a rotation). Sello signs with it; tests of receivers use it
// too.
func SignatureHeader(t time.Time, body []byte, secrets ...string) string {
	ts := t.Unix()
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatInt(ts, 10))
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(Sign(s, ts, body))
	}
	return b.String()
}

// VerifySignature checks a delivery as spec §6.2 says: header parses, one of
// its v1 signatures equals the HMAC of "<t>.<payload>" under one of secrets
// (compared in constant time), and t is within Tolerance of now in either
// direction. payload must be the raw body, before any parsing.
//
// Returns nil or an error wrapping ErrNoSignature, ErrMalformedHeader,
// ErrInvalidTimestamp, ErrSignatureMismatch or ErrTimestampOutOfTolerance.
func VerifySignature(payload []byte, header string, secrets []string, now time.Time) error {
	sig, err := ParseSignatureHeader(header)
	if err != nil {
		return err
	}
	if !sig.matches(payload, secrets) {
		return ErrSignatureMismatch
	}
	// Checked after the signature, so that a genuine but stale delivery
	// (a replay) is told apart from a forgery.
	if d := now.Sub(time.Unix(sig.Timestamp, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("%w: t=%d is %s from now", ErrTimestampOutOfTolerance, sig.Timestamp, d.Round(time.Second))
	}
	return nil
}

// matches reports whether any v1 is the signature of payload under any
// secret. Every pair is compared, in constant time each.
func (s *Signature) matches(payload []byte, secrets []string) bool {
	ok := false
	for _, secret := range secrets {
		if secret == "" {
			continue
		}
		want := mac(secret, s.Timestamp, payload)
		for _, v1 := range s.V1 {
			got, err := hex.DecodeString(v1)
			if err == nil && hmac.Equal(got, want) {
				ok = true
			}
		}
	}
	return ok
}

// VerifyWebhook verifies a delivery (see VerifySignature) and decodes its
// body. Returns the verification errors, or an error when the verified body
// is not an event.
func VerifyWebhook(payload []byte, header string, secrets []string, now time.Time) (*Event, error) {
	if err := VerifySignature(payload, header, secrets, now); err != nil {
		return nil, err
	}
	var ev Event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("sello webhook: decode event: %w", err)
	}
	if ev.ID == "" || ev.Type == "" {
		return nil, errors.New("sello webhook: event without id or type")
	}
	return &ev, nil
}

// MaxWebhookBytes is the largest delivery body WebhookHandler reads.
const MaxWebhookBytes = 1 << 20

// Webhook is an http.Handler receiving Sello's deliveries: it reads the raw
// body (at most MaxBodyBytes), verifies it, checks the Sello-Event-Id and
// Sello-Event-Type headers against the body, and calls Handle. It answers
//
//   - 200 when Handle returns nil (Sello counts any 2xx as delivered);
//   - 400 when the signature, the headers or the body are not right (a
//     forgery, or a delivery signed with a secret you no longer have);
//   - 413 for a body over the limit, 405 for another method;
//   - 500 when Handle fails, so that Sello retries the delivery later.
//
// Handle should store the event and return quickly (within 15 seconds).
type Webhook struct {
	// Secrets are the endpoint's signing secrets; more than one during a
	// rotation.
	Secrets []string
	// Handle applies one verified event.
	Handle func(ctx context.Context, ev *Event) error
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// MaxBodyBytes bounds the body; MaxWebhookBytes when 0.
	MaxBodyBytes int64
	// OnError, when set, is told why a delivery was refused or failed (for
	// your logs); the client only sees the status.
	OnError func(r *http.Request, err error)
}

// WebhookHandler returns a Webhook with secrets and handle.
//
//	http.Handle("POST /sello/webhooks", client.WebhookHandler([]string{secret},
//		client.Idempotent(store, func(ctx context.Context, ev *client.Event) error { … })))
func WebhookHandler(secrets []string, handle func(ctx context.Context, ev *Event) error) *Webhook {
	return &Webhook{Secrets: secrets, Handle: handle}
}

// ServeHTTP implements http.Handler.
func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.fail(w, r, http.StatusMethodNotAllowed, fmt.Errorf("method %s", r.Method))
		return
	}
	limit := h.MaxBodyBytes
	if limit <= 0 {
		limit = MaxWebhookBytes
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("read body: %w", err))
		return
	} else if int64(len(body)) > limit {
		h.fail(w, r, http.StatusRequestEntityTooLarge, fmt.Errorf("body over %d bytes", limit))
		return
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	ev, err := VerifyWebhook(body, r.Header.Get(HeaderSignature), h.Secrets, now())
	if err != nil {
		h.fail(w, r, http.StatusBadRequest, err)
		return
	}
	if got := r.Header.Get(HeaderEventID); got != ev.ID {
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("header %s %q differs from the body's id %q", HeaderEventID, got, ev.ID))
		return
	}
	if got := r.Header.Get(HeaderEventType); got != string(ev.Type) {
		h.fail(w, r, http.StatusBadRequest, fmt.Errorf("header %s %q differs from the body's type %q", HeaderEventType, got, ev.Type))
		return
	}
	if err := h.Handle(r.Context(), ev); err != nil {
		h.fail(w, r, http.StatusInternalServerError, fmt.Errorf("handle event %s: %w", ev.ID, err))
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (h *Webhook) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if h.OnError != nil {
		h.OnError(r, err)
	}
	http.Error(w, http.StatusText(status), status)
}
