package sello

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sello-do/sello/internal/i18n"
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
// client; anything else wrapped in Err stays in the logs. Message is
// English; LocalizedMessage and LocalizedDetails give the client's language
// (the catalogue of internal/i18n), the code never changes.
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

	// text is what Message was formatted from (Errorf), zero when Message
	// was set as it is (then it is its own catalogue key).
	text Text
	// detailTexts are what Details' messages were formatted from, index
	// for index (Problems), zero for a message set as it is.
	detailTexts []Text
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

// WithDetailsOf gives e the details of other, and their count beyond
// MaxDetails, and returns e.
func (e *Error) WithDetailsOf(other *Error) *Error {
	e.Details, e.detailTexts, e.Truncated = other.Details, other.detailTexts, other.Truncated
	return e
}

// WithErr sets e's underlying cause (logged, never shown) and returns e.
func (e *Error) WithErr(err error) *Error {
	e.Err = err
	return e
}

// Errorf returns an *Error with the code and a formatted message. The
// format is the message's key in the catalogue (internal/i18n), which
// holds its Spanish: a test fails on a literal format without one.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	t := Textf(format, args...)
	return &Error{Code: code, Message: t.String(), text: t}
}

// Text is a sentence people read, kept as its catalogue key (the English
// fmt format) and its arguments, so that it can be written in either
// language of the catalogue (internal/i18n). Arguments that are Localizers
// (Texts among them) are written in the same language; the others as fmt
// formats them. The zero Text is empty.
type Text struct {
	key    string
	args   []any
	format bool // key is a format to fill in with args, not a sentence as it is
}

// Textf is the Text of format and args, fmt's way. The format is its key in
// the catalogue.
func Textf(format string, args ...any) Text { return Text{key: format, args: args, format: true} }

// literal is the Text of a sentence as it is, its own key, formatted no
// further (a "%" in it stays).
func literal(s string) Text { return Text{key: s} }

// Localizer is an argument of a Text that writes itself in the reader's
// language.
type Localizer interface {
	In(lang i18n.Lang) string
}

// String is t in English.
func (t Text) String() string { return t.In(i18n.EN) }

// In is t in lang: the catalogue's text for its key, its arguments filled
// in. A key the catalogue lacks is written as it is (it is its own English).
func (t Text) In(lang i18n.Lang) string {
	f := t.key
	if lang != i18n.EN {
		if e, ok := i18n.Lookup(t.key); ok {
			f = e.ES
		}
	}
	if !t.format {
		return f
	}
	args, cloned := t.args, false
	for i, a := range t.args {
		if l, ok := a.(Localizer); ok {
			if !cloned {
				args, cloned = slices.Clone(t.args), true
			}
			args[i] = l.In(lang)
		}
	}
	return fmt.Sprintf(f, args...)
}

// IsZero reports whether t is the zero Text.
func (t Text) IsZero() bool { return t.key == "" && !t.format }

// ErrorText is the Text of err's client-facing message (ErrorMessageOf), to
// pass on as an argument or a detail in the reader's language.
func ErrorText(err error) Text {
	var e *Error
	if err == nil {
		return Text{}
	} else if errors.As(err, &e) {
		return e.messageText()
	}
	return literal(internalMessage)
}

// messageText is the Text of e.Message: its format when Message is still
// what it was formatted to, else Message as it is.
func (e *Error) messageText() Text {
	return textOf(e.text, e.Message)
}

// textOf is t when it still writes msg in English, else msg as it is (its
// own key): a message changed after it was formatted is never written from
// a stale format.
func textOf(t Text, msg string) Text {
	if !t.IsZero() && t.String() == msg {
		return t
	}
	return literal(msg)
}

// LocalizedMessage is err's client-facing message (ErrorMessageOf) in lang.
// English is ErrorMessageOf byte for byte.
func LocalizedMessage(err error, lang i18n.Lang) string {
	if lang == i18n.EN {
		return ErrorMessageOf(err)
	}
	return ErrorText(err).In(lang)
}

// LocalizedDetails is e.Details with their messages in lang (English: the
// same slice).
func (e *Error) LocalizedDetails(lang i18n.Lang) []ErrorDetail {
	if lang == i18n.EN || len(e.Details) == 0 {
		return e.Details
	}
	out := make([]ErrorDetail, len(e.Details))
	for i, d := range e.Details {
		var t Text
		if i < len(e.detailTexts) {
			t = e.detailTexts[i]
		}
		out[i] = ErrorDetail{Path: d.Path, Message: textOf(t, d.Message).In(lang)}
	}
	return out
}

// ErrorTitle is the short name of code in lang (for pages and logs; the
// API answers the code itself, never translated).
func ErrorTitle(code ErrorCode, lang i18n.Lang) string {
	return i18n.T(lang, string(code))
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

// ValidationErrorf is VALIDATION_FAILED with one detail at path whose
// message is formatted, Errorf's way.
func ValidationErrorf(path, format string, args ...any) *Error {
	var p Problems
	p.Addf(path, format, args...)
	return p.error()
}

// Problems collects the details of an invalid request. It keeps the first
// MaxDetails and counts the rest, so that checking a hostile document never
// builds an unbounded answer. The zero value is ready to use.
type Problems struct {
	details   []ErrorDetail
	texts     []Text // details' texts, index for index
	truncated int
}

// Add records a problem at path, message as it is (its own catalogue key).
func (p *Problems) Add(path, message string) { p.AddText(path, literal(message)) }

// Addf records a problem at path whose message is formatted, fmt's way;
// the format is its key in the catalogue.
func (p *Problems) Addf(path, format string, args ...any) {
	p.AddText(path, Textf(format, args...))
}

// AddText records a problem at path whose message is t.
func (p *Problems) AddText(path string, t Text) {
	if len(p.details) >= MaxDetails {
		p.truncated++
		return
	}
	p.details = append(p.details, ErrorDetail{Path: path, Message: t.String()})
	p.texts = append(p.texts, t)
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

// Errorf returns an error with code and a formatted message (Errorf)
// carrying the problems recorded: the kept details and the count of the
// others in Truncated.
func (p *Problems) Errorf(code ErrorCode, format string, args ...any) *Error {
	e := Errorf(code, format, args...)
	e.Details, e.detailTexts, e.Truncated = p.details, p.texts, p.truncated
	return e
}

func (p *Problems) error() *Error {
	switch n := p.Len(); {
	case n == 1:
		return p.Errorf(CodeValidationFailed, "The document is not valid: 1 problem.")
	case p.truncated > 0:
		return p.Errorf(CodeValidationFailed, "The document is not valid: %d problems. The first %d are listed.", n, len(p.details))
	default:
		return p.Errorf(CodeValidationFailed, "The document is not valid: %d problems.", n)
	}
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

// internalMessage is the message of an error that is not *Error.
const internalMessage = "An internal error occurred."

// ErrorMessageOf returns the client-facing message of err. Errors that are not
// *Error get a generic message, so internals never leak.
func ErrorMessageOf(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return internalMessage
}
