package dgii

import (
	"errors"
	"fmt"
	"strings"
)

// Error classes. Test them with errors.Is; an error may belong to more than
// one (a send answered 504 is both ErrUncertain and ErrUnavailable: check
// ErrUncertain first).
var (
	// ErrUnavailable means DGII could not be reached or answered 5xx or 429:
	// the service is down, overloaded or in maintenance. On its own (without
	// ErrUncertain) it also means a send did not reach DGII, so sending again
	// later is safe.
	ErrUnavailable = errors.New("dgii: service unavailable")

	// ErrUncertain means a send (recepción, RFCE, aprobación comercial,
	// anulación) was written to DGII but no answer was read: a timeout or a
	// connection reset after the request went out, or a 500/504 that DGII or
	// a gateway may have given after processing it. DGII may or may not have
	// the document. Reconcile before sending again: Session.TrackIDs for an
	// e-CF, Session.Estado for an RFCE.
	ErrUncertain = errors.New("dgii: send outcome uncertain")

	// ErrUnauthorized means DGII refused the credentials: validarsemilla
	// refused the signed seed, or a service answered 401 again after one
	// re-authentication.
	ErrUnauthorized = errors.New("dgii: unauthorized")
)

// maxErrorBody is how much of an error response Error.Body keeps.
const maxErrorBody = 4 << 10

// Error is an HTTP answer from DGII that is not a success: its status, and
// the codigo and mensajes DGII put in the body (JSON or XML), when it put
// any. errors.Is(err, ErrUnauthorized) holds for 401, errors.Is(err,
// ErrUnavailable) for 5xx and 429. Any other 4xx is DGII refusing the
// request itself (a bad file name, an invalid XML): nothing was accepted.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Codigo is DGII's code from the body ("codigo", or "error" in
	// recepción's answer), "" when the body has none.
	Codigo string
	// Mensajes are DGII's messages from the body, in order.
	Mensajes []string
	// Body is the first 4 KiB of the response body.
	Body string
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dgii: HTTP %d", e.Status)
	if e.Codigo != "" {
		fmt.Fprintf(&b, ": codigo %s", e.Codigo)
	}
	if len(e.Mensajes) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(e.Mensajes, "; "))
	}
	return b.String()
}

// Is reports whether e belongs to the class target: ErrUnauthorized for
// 401, ErrUnavailable for 5xx and 429.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.Status == 401
	case ErrUnavailable:
		return e.Status >= 500 || e.Status == 429
	}
	return false
}

// uncertainStatus reports whether a send answered with status may
// nevertheless have been processed: 500 (DGII failed somewhere, perhaps
// after storing it) and 504 (a gateway gave up waiting for DGII).
func uncertainStatus(status int) bool { return status == 500 || status == 504 }
