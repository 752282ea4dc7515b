package dgii

import (
	"errors"

	"github.com/sello-do/sello/internal/tracing"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of the spans of DGII's services and of the receivers'
// (docs/tracing.md).
const (
	// AttrService is the service called: DGII's ("recepcion",
	// "consultaresultado", "semilla", …) or a receiver's ("recepcion",
	// "semilla", …).
	AttrService = attribute.Key("dgii.service")
	// AttrOutcome is how the call ended: ok, unavailable, uncertain,
	// unauthorized, refused (a 4xx, the request itself refused) or error.
	AttrOutcome = attribute.Key("dgii.outcome")
)

// endSpan ends the span of a call with its last HTTP status (0 when none
// was read) and its outcome.
func endSpan(span trace.Span, status int, err error) {
	var de *Error
	var re *ReceptorError
	switch {
	case errors.As(err, &de):
		status = de.Status
	case errors.As(err, &re):
		status = re.Status
	}
	if status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	span.SetAttributes(AttrOutcome.String(outcome(err, status)))
	tracing.End(span, err)
}

// outcome names the class of a call's error (see AttrOutcome).
func outcome(err error, status int) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrUncertain):
		return "uncertain"
	case errors.Is(err, ErrUnauthorized):
		return "unauthorized"
	case errors.Is(err, ErrUnavailable):
		return "unavailable"
	case status >= 400 && status < 500:
		return "refused"
	}
	return "error"
}
