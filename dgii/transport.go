package dgii

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/tracing"
	"go.opentelemetry.io/otel/trace"
)

// maxResponse bounds how much of a response body is read; the whole
// directory is the largest answer.
const maxResponse = 32 << 20

// request is one call to a DGII service.
type request struct {
	op     string // for errors: "recepcion", "consultaresultado", …
	method string
	base   string // URLs.ECF or URLs.FC
	path   string // after the environment segment
	query  url.Values
	file   *filePart // multipart body, for POSTs
	// idempotent calls are retried on network errors, 5xx and 429; others
	// are sends, never retried, and classified certain or uncertain.
	idempotent bool
	// auth calls carry the session's Bearer token.
	auth bool
}

// filePart is the one multipart part DGII's services take, named "xml".
type filePart struct {
	name    string
	content []byte
}

// response is a successful (2xx) answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// multipartBody builds the body in memory, so the request carries a real
// Content-Length: DGII answers a chunked upload "Multipart cannot be empty".
func multipartBody(f *filePart) (body []byte, contentType string, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="xml"; filename=%q`, f.name))
	h.Set("Content-Type", "text/xml")
	p, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := p.Write(f.content); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// do performs r (call) in a span "dgii OP", child of ctx's span when its
// trace is recorded (docs/tracing.md), with the service, the environment,
// the last HTTP status and the outcome.
func (s *Session) do(ctx context.Context, r request) (*response, error) {
	ctx, span := tracing.Start(ctx, "dgii "+r.op, trace.WithSpanKind(trace.SpanKindClient))
	if !span.IsRecording() {
		return s.call(ctx, r)
	}
	span.SetAttributes(AttrService.String(r.op), tracing.AttrEnvironment.String(string(s.env)))
	resp, err := s.call(ctx, r)
	status := 0
	if resp != nil {
		status = resp.status
	}
	endSpan(span, status, err)
	return resp, err
}

// call performs r: it adds the token, re-authenticates once on a 401,
// retries idempotent calls, and classifies failures. It returns only 2xx
// answers; anything else is an error. Config.OnCall hears of it.
func (s *Session) call(ctx context.Context, r request) (_ *response, err error) {
	if s.c.onCall != nil {
		start := time.Now()
		defer func() {
			s.c.onCall(Call{Environment: s.env, Service: r.op, Outcome: callOutcome(ctx, err), Duration: time.Since(start)})
		}()
	}
	var body []byte
	var contentType string
	if r.file != nil {
		var err error
		if body, contentType, err = multipartBody(r.file); err != nil {
			return nil, fmt.Errorf("dgii: %s: build body: %w", r.op, err)
		}
	}
	retries := 0
	if r.idempotent {
		retries = s.c.retries
	}
	reauthenticated := false
	for attempt := 0; ; {
		resp, token, err := s.once(ctx, r, body, contentType)
		if err == nil && resp.status == http.StatusUnauthorized && r.auth && !reauthenticated {
			// DGII refused the token (expired early, revoked): forget it,
			// authenticate again and repeat the call, once. A 401 means the
			// call was not processed, so this is safe for sends too.
			s.dropToken(token)
			reauthenticated = true
			trace.SpanFromContext(ctx).AddEvent("reauthenticate")
			continue
		}
		var ae *authError
		if errors.As(err, &ae) {
			return nil, fmt.Errorf("dgii: %s: authenticate: %w", r.op, ae.err)
		}
		if err == nil && resp.status >= 200 && resp.status < 300 {
			return resp, nil
		}
		if err == nil {
			err = parseError(resp.status, resp.body)
		}
		if ctx.Err() != nil || attempt >= retries || !retryable(err) {
			return nil, classify(ctx, r, err)
		}
		attempt++
		trace.SpanFromContext(ctx).AddEvent("retry")
		if err := sleep(ctx, s.c.backoff(attempt)); err != nil {
			return nil, fmt.Errorf("dgii: %s: %w", r.op, err)
		}
	}
}

// Call is one call to a DGII service, over (Config.OnCall).
type Call struct {
	Environment sello.Environment
	// Service is the service's name: semilla, validarsemilla, recepcion,
	// consultaresultado, recepcionfc, consultatrackids, consultaestado,
	// consultadirectorio, aprobacioncomercial or anulacionrangos.
	Service string
	// Outcome is one of the Call outcomes.
	Outcome  string
	Duration time.Duration
}

// The outcomes of a Call.
const (
	CallOK = "ok"
	// CallUnavailable: DGII could not be reached, or answered 5xx or 429
	// (ErrUnavailable).
	CallUnavailable = "unavailable"
	// CallUncertain: a send went out and no answer came (ErrUncertain).
	CallUncertain = "uncertain"
	// CallUnauthorized: DGII refused the credentials (ErrUnauthorized).
	CallUnauthorized = "unauthorized"
	// CallRefused: DGII answered another 4xx: it refused the request.
	CallRefused = "refused"
	// CallCancelled: the caller gave up (its context ended).
	CallCancelled = "cancelled"
	// CallFailed: anything else (a request that could not be built).
	CallFailed = "error"
)

// callOutcome is the outcome of a call that ended with err.
func callOutcome(ctx context.Context, err error) string {
	var de *Error
	switch {
	case err == nil:
		return CallOK
	case errors.Is(err, ErrUncertain):
		return CallUncertain
	case errors.Is(err, ErrUnavailable):
		return CallUnavailable
	case errors.Is(err, ErrUnauthorized):
		return CallUnauthorized
	case ctx.Err() != nil:
		return CallCancelled
	case errors.As(err, &de):
		return CallRefused
	}
	return CallFailed
}

// retryable reports whether an idempotent call that failed with err may
// succeed when repeated.
func retryable(err error) bool {
	var te *transportError
	return errors.As(err, &te) || errors.Is(err, ErrUnavailable)
}

// classify wraps a final failure with the operation and its class.
func classify(ctx context.Context, r request, err error) error {
	var te *transportError
	var de *Error
	switch {
	case errors.As(err, &te):
		if te.written && !r.idempotent {
			return fmt.Errorf("dgii: %s: %w: %w", r.op, ErrUncertain, te.err)
		}
		if ctx.Err() != nil {
			// The caller gave up; DGII is not known to be down.
			return fmt.Errorf("dgii: %s: %w", r.op, te.err)
		}
		return fmt.Errorf("dgii: %s: %w: %w", r.op, ErrUnavailable, te.err)
	case errors.As(err, &de):
		if !r.idempotent && uncertainStatus(de.Status) {
			return fmt.Errorf("dgii: %s: %w: %w", r.op, ErrUncertain, de)
		}
		return fmt.Errorf("dgii: %s: %w", r.op, de)
	}
	return fmt.Errorf("dgii: %s: %w", r.op, err)
}

// transportError is a request that got no HTTP answer.
type transportError struct {
	err error
	// written reports whether the whole request went out before the
	// failure, so DGII may have processed it.
	written bool
}

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// once makes one HTTP exchange. It returns the token it used, so a 401 can
// drop exactly that one.
func (s *Session) once(ctx context.Context, r request, body []byte, contentType string) (*response, string, error) {
	var token string
	if r.auth {
		var err error
		if token, err = s.token(ctx); err != nil {
			return nil, "", err
		}
	}
	u := r.base + "/" + s.env.Slug() + "/" + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var written bool
	trace := &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) { written = i.Err == nil },
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body) // sets ContentLength and GetBody
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), r.method, u, rd)
	if err != nil {
		return nil, token, fmt.Errorf("dgii: %s: %w", r.op, err)
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.c.http.Do(req)
	if err != nil {
		return nil, token, &transportError{err: err, written: written}
	}
	defer resp.Body.Close()
	b, err := readAnswer(resp)
	if err != nil {
		// The answer started but broke off: the request was processed,
		// whatever it said.
		return nil, token, &transportError{err: fmt.Errorf("read answer (HTTP %d): %w", resp.StatusCode, err), written: true}
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}, token, nil
}

// readAnswer reads resp's body, at most maxResponse bytes, into a buffer
// of the size the answer declares (io.ReadAll's doubling from 512 bytes
// copied most answers several times). The declared size is trusted only
// up to answerHint: past it the buffer grows as the bytes arrive.
func readAnswer(resp *http.Response) ([]byte, error) {
	const answerHint = 1 << 20
	size := bytes.MinRead
	if n := resp.ContentLength; n > 0 {
		size += int(min(n, answerHint))
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(resp.Body, maxResponse))
	return buf.Bytes(), err
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
