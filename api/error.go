package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// statusByCode is the one table from error code to HTTP status (DESIGN §2).
var statusByCode = map[sello.ErrorCode]int{
	sello.CodeInvalidJSON:          http.StatusBadRequest,
	sello.CodeInvalidRequest:       http.StatusBadRequest,
	sello.CodeUnauthenticated:      http.StatusUnauthorized,
	sello.CodeInsufficientScope:    http.StatusForbidden,
	sello.CodeEnvironmentMismatch:  http.StatusForbidden,
	sello.CodeNotFound:             http.StatusNotFound,
	sello.CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	sello.CodeConflict:             http.StatusConflict,
	sello.CodeIdempotencyKeyReused: http.StatusConflict,
	sello.CodePayloadTooLarge:      http.StatusRequestEntityTooLarge,
	sello.CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	sello.CodeValidationFailed:     http.StatusUnprocessableEntity,
	sello.CodeSequenceExhausted:    http.StatusUnprocessableEntity,
	sello.CodeRateLimited:          http.StatusTooManyRequests,
	sello.CodeInternal:             http.StatusInternalServerError,
	sello.CodeUnavailable:          http.StatusServiceUnavailable,
}

// HTTPStatus returns the HTTP status of an error code (500 for unknown codes).
func HTTPStatus(code sello.ErrorCode) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// errorBody is the error body of spec §7 plus DESIGN §2's details.
type errorBody struct {
	OK            bool        `json:"ok"`
	Error         errorObject `json:"error"`
	CorrelationID string      `json:"correlationId"`
}

type errorObject struct {
	Code              sello.ErrorCode     `json:"code"`
	Message           string              `json:"message"`
	Details           []sello.ErrorDetail `json:"details,omitempty"`
	Truncated         int                 `json:"truncated,omitempty"`
	RetryAfterSeconds int                 `json:"retryAfterSeconds,omitempty"`
}

// writeError writes err as the error body, its message and details in the
// request's language (Accept-Language: Spanish when it prefers es, English
// otherwise; the code is never translated). Errors that are not
// *sello.Error are logged with the correlation id and shown only as
// INTERNAL.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	lang := i18n.FromAcceptLanguage(r.Header.Get("Accept-Language"))
	code := sello.ErrorCodeOf(err)
	obj := errorObject{Code: code, Message: sello.LocalizedMessage(err, lang)}
	w.Header().Add("Vary", "Accept-Language")
	w.Header().Set("Content-Language", string(lang))
	var e *sello.Error
	if errors.As(err, &e) {
		obj.Details = e.LocalizedDetails(lang)
		obj.Truncated = e.Truncated
		obj.RetryAfterSeconds = e.RetryAfterSeconds
		if e.RetryAfterSeconds > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
		}
	}
	if code == sello.CodeInternal || code == sello.CodeUnavailable {
		s.Logger.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("correlation_id", correlationID(r.Context())),
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.String("error", err.Error()))
	}
	writeJSON(w, HTTPStatus(code), errorBody{Error: obj, CorrelationID: correlationID(r.Context())})
}

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		buf = []byte(`{"ok":false,"error":{"code":"INTERNAL","message":"An internal error occurred."}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(buf)+1))
	w.WriteHeader(status)
	w.Write(append(buf, '\n'))
}
