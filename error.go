package sello

import (
	"errors"
	"fmt"
)

// ErrorCode is a machine-readable error code. The set is closed: every error
// a client can see carries one of the codes below (DESIGN §2).
type ErrorCode string

// The closed set of error codes. api.HTTPStatus maps each to its HTTP status.
const (
	CodeInvalidJSON          ErrorCode = "INVALID_JSON"
	CodeInvalidRequest       ErrorCode = "INVALID_REQUEST"
	CodeUnauthenticated      ErrorCode = "UNAUTHENTICATED"
	CodeInsufficientScope    ErrorCode = "INSUFFICIENT_SCOPE"
	CodeEnvironmentMismatch  ErrorCode = "ENVIRONMENT_MISMATCH"
	CodeNotFound             ErrorCode = "NOT_FOUND"
	CodeMethodNotAllowed     ErrorCode = "METHOD_NOT_ALLOWED"
	CodeConflict             ErrorCode = "CONFLICT"
	CodeIdempotencyKeyReused ErrorCode = "IDEMPOTENCY_KEY_REUSED"
	CodePayloadTooLarge      ErrorCode = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMediaType ErrorCode = "UNSUPPORTED_MEDIA_TYPE"
	CodeValidationFailed     ErrorCode = "VALIDATION_FAILED"
	CodeSequenceExhausted    ErrorCode = "SEQUENCE_EXHAUSTED"
	CodeRateLimited          ErrorCode = "RATE_LIMITED"
	CodeInternal             ErrorCode = "INTERNAL"
	CodeUnavailable          ErrorCode = "UNAVAILABLE"
)

// ErrorCodes lists the closed set, in the order of DESIGN §2 (with
// METHOD_NOT_ALLOWED after NOT_FOUND, in the order of their statuses).
var ErrorCodes = []ErrorCode{
	CodeInvalidJSON, CodeInvalidRequest, CodeUnauthenticated, CodeInsufficientScope,
	CodeEnvironmentMismatch, CodeNotFound, CodeMethodNotAllowed, CodeConflict, CodeIdempotencyKeyReused,
	CodePayloadTooLarge, CodeUnsupportedMediaType, CodeValidationFailed,
	CodeSequenceExhausted, CodeRateLimited, CodeInternal, CodeUnavailable,
}

// ErrorDetail points at one problem inside a request body. Path is a dotted
// JSON path with zero-based indexes, e.g. "ECF.DetallesItems.Item[0].MontoItem".
type ErrorDetail struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is the one error type of the domain. Its Code and Message reach the
// client; anything else wrapped in Err stays in the logs.
type Error struct {
	Code    ErrorCode
	Message string
	Details []ErrorDetail
	// Truncated counts the details left out of Details beyond the first
	// MaxDetails, so that an answer stays small whatever the input.
	Truncated int
	// RetryAfterSeconds is set on RATE_LIMITED errors.
	RetryAfterSeconds int
	// Err is an underlying cause, logged but never shown to a client.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MaxDetails is the most details an Error carries: the rest are counted in
// Error.Truncated.
const MaxDetails = 100

// ValidationError returns a VALIDATION_FAILED error carrying the details, the
// first MaxDetails of them when there are more.
func ValidationError(details []ErrorDetail) *Error {
	var p Problems
	for _, d := range details {
		p.Add(d.Path, d.Message)
	}
	return p.error()
}

// Problems collects the details of an invalid request. It keeps the first
// MaxDetails and counts the rest, so that checking a hostile document never
// builds an unbounded answer. The zero value is ready to use.
type Problems struct {
	details   []ErrorDetail
	truncated int
}

// Add records a problem at path.
func (p *Problems) Add(path, message string) {
	if len(p.details) >= MaxDetails {
		p.truncated++
		return
	}
	p.details = append(p.details, ErrorDetail{Path: path, Message: message})
}

// Len is the number of problems recorded, kept or not.
func (p *Problems) Len() int { return len(p.details) + p.truncated }

// Details returns the problems kept, at most MaxDetails.
func (p *Problems) Details() []ErrorDetail { return p.details }

// Err returns nil when no problem was recorded, else VALIDATION_FAILED with
// the kept details and the count of the others in Truncated.
func (p *Problems) Err() error {
	if p.Len() == 0 {
		return nil
	}
	return p.error()
}

func (p *Problems) error() *Error {
	msg := "The document is not valid: 1 problem."
	if n := p.Len(); n != 1 {
		msg = fmt.Sprintf("The document is not valid: %d problems.", n)
	}
	if p.truncated > 0 {
		msg += fmt.Sprintf(" The first %d are listed.", len(p.details))
	}
	return &Error{Code: CodeValidationFailed, Message: msg, Details: p.details, Truncated: p.truncated}
}

// ErrorCodeOf returns the code of err, or INTERNAL for errors that are not
// *Error (and "" for nil).
func ErrorCodeOf(err error) ErrorCode {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessageOf returns the client-facing message of err. Errors that are not
// *Error get a generic message, so internals never leak.
func ErrorMessageOf(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "An internal error occurred."
}
