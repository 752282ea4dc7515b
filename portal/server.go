package portal

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/httpstatus"
	"github.com/sello-do/sello/internal/i18n"
	"github.com/sello-do/sello/internal/metrics"
)

// Server is the portal. Set the fields, then serve Handler(). It serves
// every path under /portal/ and GET / (the home page, or the login).
type Server struct {
	// Store holds the tenants, DGII's state per environment, and the
	// people: users, their memberships, sessions, one-time links and the
	// audit log.
	Store sello.Store
	// RateLimiter throttles logins, second-factor codes and password
	// reset requests, per account and per address.
	RateLimiter sello.RateLimiter
	// MasterKey seals the users' TOTP secrets.
	MasterKey *sello.MasterKey
	// Mailer sends one-time links; a LogMailer on Logger when nil.
	Mailer Mailer
	// URL is the portal's public address, e.g. https://sello.example.com:
	// the links it mails start with it, and an https URL makes the session
	// cookie __Host-sello_session. Required.
	URL *url.URL
	// InsecureCookies drops the cookies' Secure attribute: only for the
	// demo on loopback over plain HTTP (sello serve --demo).
	InsecureCookies bool
	// AllowLoopbackWebhooks accepts webhook endpoints on this machine
	// (127.0.0.0/8, ::1) outside eCF, for tests and demos: set it when the
	// server's workers deliver there (sello serve --allow-loopback-webhooks
	// or --demo).
	AllowLoopbackWebhooks bool
	// ReceiverTrust are the trust roots the tenants' receivers check
	// signers against (sello serve --receiver-trust-roots, the demo's CA),
	// as the API's Server has them: the Receptor page lists them. Nil when
	// none are configured.
	ReceiverTrust *sello.TrustRoots
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client's address (as for the API).
	TrustedProxies []netip.Prefix
	// IdleTimeout and AbsoluteTimeout bound a session: it ends after
	// IdleTimeout without a request, and AbsoluteTimeout after its login
	// whatever happens; sello.SessionIdle (30 min) and
	// sello.SessionLifetime (12 h) when zero.
	IdleTimeout, AbsoluteTimeout time.Duration
	// SequenceThresholds say when Inicio shows an e-NCF range as running
	// out: the worker's (sello serve --sequence-low-percent, …); zero
	// fields take sello.DefaultSequenceThresholds.
	SequenceThresholds sello.SequenceThresholds
	Logger             *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Metrics observes the requests; nil observes nothing.
	Metrics *metrics.Metrics

	cop *http.CrossOriginProtection
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Server) idleTimeout() time.Duration {
	if s.IdleTimeout > 0 {
		return s.IdleTimeout
	}
	return sello.SessionIdle
}

func (s *Server) absoluteTimeout() time.Duration {
	if s.AbsoluteTimeout > 0 {
		return s.AbsoluteTimeout
	}
	return sello.SessionLifetime
}

// https reports whether the portal is served over HTTPS (its URL says so).
func (s *Server) https() bool { return s.URL != nil && s.URL.Scheme == "https" }

// cookieName is the session cookie's name: with the __Host- prefix over
// HTTPS.
func (s *Server) cookieName() string {
	if s.https() {
		return sello.HostSessionCookie
	}
	return sello.SessionCookie
}

// Handler returns the portal's handler. It panics if a required field is
// missing.
func (s *Server) Handler() http.Handler {
	if s.Store == nil || s.URL == nil {
		panic("portal: Server needs Store and URL")
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.RateLimiter == nil {
		s.RateLimiter = sello.NewMemoryRateLimiter()
	}
	if s.Mailer == nil {
		s.Mailer = LogMailer{Logger: s.Logger}
	}
	s.cop = http.NewCrossOriginProtection()
	if s.URL.Host != "" {
		// Behind a proxy that rewrites Host, the public origin still counts
		// as the portal's own.
		if err := s.cop.AddTrustedOrigin(s.URL.Scheme + "://" + s.URL.Host); err != nil {
			panic(fmt.Sprintf("portal: URL %s: %v", s.URL, err))
		}
	}
	s.cop.SetDenyHandler(http.HandlerFunc(s.denyCrossOrigin))
	mux := http.NewServeMux()
	s.routes(mux)
	// Metrics reads the mux's pattern on the request it was given: every
	// handler in between passes r on. A request refused before the mux
	// (cross-origin, an API key) is "unmatched".
	return s.Metrics.Instrument(s.withRecover(s.withAccessLog(s.withHeaders(s.refuseAPIKeys(s.cop.Handler(limitBody(mux)))))))
}

// maxFormBytes bounds a request's body: the portal's forms are small.
const maxFormBytes = 1 << 20

// limitBody refuses a body over bodyLimit, maxFormBytes but for uploads
// (the form's parse fails, and the handler sees an empty form).
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, bodyLimit(r))
		}
		next.ServeHTTP(w, r)
	})
}

// visit is what a handler knows of the request: the reader's language and,
// once logged in, the session, its user, tenant and role.
type visit struct {
	Lang    i18n.Lang
	Session *sello.Session
	User    *sello.User
	// Tenant and Role are the session's tenant and the user's role in it.
	Tenant *sello.Tenant
	Role   sello.Role
	// Memberships are every tenant the user belongs to (the switcher).
	Memberships []*sello.Membership
	// Pending: the session waits for its second factor (the header then
	// shows no company or menu).
	Pending bool
	// Addr is the client's address.
	Addr netip.Addr
}

// T is the catalogue's string for key in the visit's language.
func (v *visit) T(key string, args ...any) string { return i18n.T(v.Lang, key, args...) }

// handlerFunc is a page handler: it returns its error to one adapter,
// which writes the error page.
type handlerFunc func(w http.ResponseWriter, r *http.Request, v *visit) error

// public adapts a handler of a page that needs no session (the login, the
// one-time links): the visit has the reader's language and no user.
func (s *Server) public(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &visit{Lang: s.guestLang(r), Addr: s.clientAddr(r)}
		if err := h(w, r, v); err != nil {
			s.writeError(w, r, v, err)
		}
	})
}

// writeError writes the error page for err: the code's status and its
// message for the domain's errors, a generic message (and a log line) for
// the others.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, v *visit, err error) {
	code := sello.ErrorCodeOf(err)
	status := statusOf(code)
	msg := errorMessage(v.Lang, err)
	if code == sello.CodeInternal {
		s.Logger.LogAttrs(r.Context(), slog.LevelError, "portal error", slog.String("path", r.URL.Path), slog.String("err", err.Error()))
		msg = v.T("Something went wrong on our side. Try again in a moment.")
	}
	if r.Header.Get("HX-Request") == "true" {
		// htmx swaps only 2xx answers by default: a short text is enough
		// for its error event.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		fmt.Fprint(w, msg)
		return
	}
	s.render(w, r, status, errorPage(s.layout(r, v, v.T("Error")), msg))
}

// pageError is an error whose message is already in the reader's language
// (the catalogue's, through v.T): the error page shows it as it is.
func pageError(code sello.ErrorCode, msg string) error {
	return &sello.Error{Code: code, Message: msg}
}

// statusOf is the HTTP status of an error code.
func statusOf(code sello.ErrorCode) int {
	switch code {
	case sello.CodeInvalidRequest, sello.CodeInvalidJSON, sello.CodeValidationFailed:
		return http.StatusBadRequest
	case sello.CodeUnauthenticated:
		return http.StatusUnauthorized
	case sello.CodeInsufficientScope, sello.CodeEnvironmentMismatch:
		return http.StatusForbidden
	case sello.CodeNotFound:
		return http.StatusNotFound
	case sello.CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case sello.CodeConflict:
		return http.StatusConflict
	case sello.CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case sello.CodeRateLimited:
		return http.StatusTooManyRequests
	case sello.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// errorMessage is err's message for a reader of lang: the domain's
// messages in the catalogue's language, a page's own as they are.
func errorMessage(lang i18n.Lang, err error) string {
	return sello.LocalizedMessage(err, lang)
}

// render writes a page with its status. The page is rendered into a
// buffer first, so that a failure midway becomes the error page instead of
// half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.Logger.LogAttrs(r.Context(), slog.LevelError, "portal render", slog.String("path", r.URL.Path), slog.String("err", err.Error()))
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// withRecover turns a panic into the error page and a log line.
func (s *Server) withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if e := recover(); e != nil {
				if e == http.ErrAbortHandler {
					panic(e)
				}
				v := &visit{Lang: s.guestLang(r)}
				s.writeError(w, r, v, fmt.Errorf("panic: %v\n%s", e, debug.Stack()))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// withAccessLog logs one line per request, never a cookie or a token: the
// query is left out, and a one-time link's path is cut before its token.
func (s *Server) withAccessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &httpstatus.Recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if strings.HasPrefix(r.URL.Path, staticPrefix) {
			return
		}
		path := r.URL.Path
		if strings.HasPrefix(path, sello.LinkPath) {
			path = sello.LinkPath + "…" // the link's token is a credential
		}
		s.Logger.LogAttrs(r.Context(), slog.LevelInfo, "portal request",
			slog.String("method", r.Method),
			slog.String("path", path),
			slog.Int("status", rec.Status),
			slog.Duration("duration", time.Since(start)))
	})
}
