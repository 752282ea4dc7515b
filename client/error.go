package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ErrorCode is one of the API's closed set of error codes.
type ErrorCode string

// The API's error codes and their HTTP statuses.
const (
	CodeInvalidJSON          ErrorCode = "INVALID_JSON"           // 400
	CodeInvalidRequest       ErrorCode = "INVALID_REQUEST"        // 400
	CodeUnauthenticated      ErrorCode = "UNAUTHENTICATED"        // 401
	CodeInsufficientScope    ErrorCode = "INSUFFICIENT_SCOPE"     // 403
	CodeEnvironmentMismatch  ErrorCode = "ENVIRONMENT_MISMATCH"   // 403
	CodeNotFound             ErrorCode = "NOT_FOUND"              // 404
	CodeMethodNotAllowed     ErrorCode = "METHOD_NOT_ALLOWED"     // 405
	CodeConflict             ErrorCode = "CONFLICT"               // 409
	CodeIdempotencyKeyReused ErrorCode = "IDEMPOTENCY_KEY_REUSED" // 409
	CodePayloadTooLarge      ErrorCode = "PAYLOAD_TOO_LARGE"      // 413
	CodeUnsupportedMediaType ErrorCode = "UNSUPPORTED_MEDIA_TYPE" // 415
	CodeValidationFailed     ErrorCode = "VALIDATION_FAILED"      // 422
	CodeSequenceExhausted    ErrorCode = "SEQUENCE_EXHAUSTED"     // 422
	CodeRateLimited          ErrorCode = "RATE_LIMITED"           // 429
	CodeInternal             ErrorCode = "INTERNAL"               // 500
	CodeUnavailable          ErrorCode = "UNAVAILABLE"            // 503
)

// ErrorDetail is one problem of a request, at a dotted JSON path such as
// "ECF.DetallesItems.Item[0].MontoItem".
type ErrorDetail struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is an error answer of the API (any status outside 2xx). Branch on
// Code, not Message. Quote CorrelationID to support.
//
// When the answer was not Sello's error body (a proxy's 502 page, say), Code
// is empty and Message holds the start of the body.
type Error struct {
	HTTPStatus    int
	Code          ErrorCode
	Message       string
	Details       []ErrorDetail
	CorrelationID string
	// RetryAfter is the server's Retry-After (with 429 RATE_LIMITED).
	RetryAfter time.Duration
	// Truncated counts the problems left out of Details beyond its first
	// 100 (the server caps the list).
	Truncated int `json:"truncated"`
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sello: %d", e.HTTPStatus)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	for i, d := range e.Details {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Details)-i)
			break
		}
		fmt.Fprintf(&b, "; %s: %s", d.Path, d.Message)
	}
	if e.CorrelationID != "" {
		fmt.Fprintf(&b, " (correlation id %s)", e.CorrelationID)
	}
	return b.String()
}

// IsCode reports whether err is, or wraps, an *Error with code.
func IsCode(err error, code ErrorCode) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// IsNotFound reports whether err is a NOT_FOUND answer.
func IsNotFound(err error) bool { return IsCode(err, CodeNotFound) }

// IsRetryable reports whether err is worth retrying later with the same
// request: a 429, a 5xx or a network error. The client already retried it
// as its RetryPolicy allows.
func IsRetryable(err error) bool { return retryable(err) }

// parseError turns a non-2xx answer into an *Error.
func (c *Client) parseError(resp *http.Response, body []byte) *Error {
	e := &Error{
		HTTPStatus:    resp.StatusCode,
		CorrelationID: resp.Header.Get("X-Correlation-Id"),
		RetryAfter:    parseRetryAfter(resp.Header.Get("Retry-After"), c.now()),
	}
	var eb struct {
		Error *struct {
			Code              ErrorCode     `json:"code"`
			Message           string        `json:"message"`
			Details           []ErrorDetail `json:"details"`
			Truncated         int           `json:"truncated"`
			RetryAfterSeconds int           `json:"retryAfterSeconds"`
		} `json:"error"`
		CorrelationID string `json:"correlationId"`
	}
	if err := json.Unmarshal(body, &eb); err != nil || eb.Error == nil || eb.Error.Code == "" {
		e.Message = http.StatusText(resp.StatusCode)
		if s := strings.TrimSpace(string(body)); s != "" {
			if len(s) > 200 {
				s = s[:200] + "…"
			}
			e.Message += ": " + s
		}
		return e
	}
	e.Code, e.Message, e.Details, e.Truncated = eb.Error.Code, eb.Error.Message, eb.Error.Details, eb.Error.Truncated
	if e.CorrelationID == "" {
		e.CorrelationID = eb.CorrelationID
	}
	if e.RetryAfter == 0 && eb.Error.RetryAfterSeconds > 0 {
		e.RetryAfter = time.Duration(eb.Error.RetryAfterSeconds) * time.Second
	}
	return e
}
