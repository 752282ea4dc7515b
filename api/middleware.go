package api

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/httpstatus"
	"github.com/sello-do/sello/internal/tracing"
)

type contextKey int

const (
	principalKey contextKey = iota
)

// principal is the authenticated caller of a request.
type principal struct {
	Key    *sello.APIKey
	Tenant *sello.Tenant
	Env    sello.Environment
}

func correlationID(ctx context.Context) string { return tracing.CorrelationID(ctx) }

func principalFrom(ctx context.Context) *principal {
	p, _ := ctx.Value(principalKey).(*principal)
	return p
}

// withCorrelation gives every request a correlation id, returned in the
// X-Correlation-Id header of every response and in every body.
func (s *Server) withCorrelation(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := uuid.NewString()
		w.Header().Set("X-Correlation-Id", id)
		next.ServeHTTP(w, r.WithContext(tracing.WithCorrelationID(r.Context(), id)))
	})
}

// withRecover turns a panic into an INTERNAL error body and a log line.
func (s *Server) withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.writeError(w, r, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// withAccessLog logs one line per request: never the API key, only its id.
func (s *Server) withAccessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &httpstatus.Recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		s.Logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("correlation_id", correlationID(r.Context())),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.Status),
			slog.Duration("duration", time.Since(start)))
	})
}

// withUnmatched answers the requests no route takes with the error body:
// 405 METHOD_NOT_ALLOWED, with the mux's Allow header, for a method the path
// does not serve (the mux finds the methods, HEAD with GET); 404 NOT_FOUND
// for a path no route has. Both come before any key is looked at.
func (s *Server) withUnmatched(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		tracing.SetRoute(r.Context(), pattern)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		// The mux's own answer says which: its 405 carries Allow.
		probe := &headerProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if allow := probe.header.Get("Allow"); probe.status == http.StatusMethodNotAllowed && allow != "" {
			w.Header().Set("Allow", allow)
			s.writeError(w, r, sello.Errorf(sello.CodeMethodNotAllowed, "Method %s is not allowed on %s; use %s.", r.Method, r.URL.Path, orList(strings.Split(allow, ", "))))
			return
		}
		s.writeError(w, r, sello.Errorf(sello.CodeNotFound, "No such endpoint: %s %s.", r.Method, r.URL.Path))
	})
}

// headerProbe is a ResponseWriter that keeps the status and headers of
// an answer and drops its body.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(status int)      { p.status = status }

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) sello.Text {
	if len(words) < 2 {
		return sello.Textf("%s", strings.Join(words, ""))
	}
	return sello.Textf("%s or %s", strings.Join(words[:len(words)-1], ", "), words[len(words)-1])
}

// scopeFunc says which scope a request needs.
type scopeFunc func(r *http.Request) sello.Scope

// fixedScope is the scopeFunc of routes that always need scope.
func fixedScope(scope sello.Scope) scopeFunc {
	return func(*http.Request) sello.Scope { return scope }
}

// authenticated runs h for callers with a valid key of the path's
// environment, carrying the scope the request needs, within their rate
// limit. The order of checks: 401 UNAUTHENTICATED; then, the key known,
// 429 RATE_LIMITED, so that every answer to a known key (its 404s and 403s
// too) carries the RateLimit headers and counts against the limit; then 404
// for an unknown environment, 403 ENVIRONMENT_MISMATCH and 403
// INSUFFICIENT_SCOPE.
func (s *Server) authenticated(scope scopeFunc, h handlerFunc) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.authenticate(r)
		if err != nil {
			return err
		}
		s.recordKeyUse(r, p.Key)
		if err := s.limit(w, r, p); err != nil {
			return err
		}
		if p.Env, err = pathEnvironment(r, p.Key); err != nil {
			return err
		}
		r = r.WithContext(context.WithValue(r.Context(), principalKey, p))
		if err := requireScope(p, scope(r)); err != nil {
			return err
		}
		return h(w, r)
	})
}

// authenticate finds the caller's key: missing, unknown, revoked and
// expired keys are UNAUTHENTICATED. A request with Authorization but no
// X-API-KEY is told where the key goes (spec §5 reserves Authorization).
// The principal's Env is not set yet.
func (s *Server) authenticate(r *http.Request) (*principal, error) {
	plaintext := r.Header.Get("X-API-KEY")
	if plaintext == "" && hasPortalCookie(r) {
		// Spec §4.5: portal cookies must not be used from a customer
		// system. A browser's session is not a key, whatever its tenant.
		return nil, sello.Errorf(sello.CodeUnauthenticated, "Missing X-API-KEY header: the API takes an API key, sent as X-API-KEY: <key>, never the portal's session cookie. Create a key in the portal (Claves API) or with sello keys create.")
	} else if plaintext == "" && r.Header.Get("Authorization") != "" {
		// Whatever it holds, it is not echoed: it may well be the key.
		return nil, sello.Errorf(sello.CodeUnauthenticated, "Missing X-API-KEY header: send the API key as X-API-KEY: <key>. The Authorization header is reserved and not read by the API, so a key sent there (Authorization: Bearer sk_…) does not authenticate.")
	} else if plaintext == "" {
		return nil, sello.Errorf(sello.CodeUnauthenticated, "Missing X-API-KEY header: send the API key as X-API-KEY: <key>.")
	}
	hash := sello.HashAPIKey(plaintext)
	key, tenant, err := s.Store.FindAPIKeyByHash(r.Context(), hash)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return nil, sello.Errorf(sello.CodeUnauthenticated, "Invalid API key.")
	} else if err != nil {
		return nil, err
	}
	// The lookup is by hash; compare again in constant time so the
	// decision never depends on how the store matched.
	if subtle.ConstantTimeCompare(key.Hash, hash) != 1 {
		return nil, sello.Errorf(sello.CodeUnauthenticated, "Invalid API key.")
	}
	now := s.now()
	if key.RevokedAt != nil {
		return nil, sello.Errorf(sello.CodeUnauthenticated, "This API key was revoked.")
	} else if !key.Active(now) {
		return nil, sello.Errorf(sello.CodeUnauthenticated, "This API key expired.")
	}
	return &principal{Key: key, Tenant: tenant}, nil
}

// recordKeyUse notes that key authenticated r, from the client's address
// (clientIP: behind the trusted proxies, the address they were called
// from), for the key's last use that the portal and `sello keys list`
// show. Any request the key authenticates counts, refused or not: a
// client that still sends a key uses it. Written at most once a minute
// per key (sello.APIKeyUses). A failed write is logged and the request
// goes on: the use is bookkeeping, not the request's work, and the next
// request writes it.
func (s *Server) recordKeyUse(r *http.Request, key *sello.APIKey) {
	if s.keyUses == nil {
		return
	}
	addr := r.RemoteAddr
	if ip, ok := clientIP(r, s.TrustedProxies); ok {
		addr = ip.String()
	}
	// Not cut short when the client hangs up.
	if err := s.keyUses.Record(context.WithoutCancel(r.Context()), s.Store, key, s.now(), addr); err != nil {
		s.Logger.LogAttrs(r.Context(), slog.LevelWarn, "record api key use",
			slog.String("correlation_id", correlationID(r.Context())),
			slog.String("key_id", key.ID),
			slog.String("error", err.Error()))
	}
}

// pathEnvironment returns the path's environment: NOT_FOUND when there is
// no such environment, ENVIRONMENT_MISMATCH when it is not key's.
func pathEnvironment(r *http.Request, key *sello.APIKey) (sello.Environment, error) {
	env, err := sello.ParseEnvironment(r.PathValue("env"))
	if err != nil {
		return "", sello.Errorf(sello.CodeNotFound, "Unknown environment %q: use TesteCF, CerteCF or eCF.", r.PathValue("env"))
	}
	if key.Environment != env {
		return "", sello.Errorf(sello.CodeEnvironmentMismatch, "This key belongs to %s and cannot be used in %s.", key.Environment, env)
	}
	return env, nil
}

// requireScope returns INSUFFICIENT_SCOPE unless the key carries scope.
func requireScope(p *principal, scope sello.Scope) error {
	if !p.Key.HasScope(scope) {
		return sello.Errorf(sello.CodeInsufficientScope, "This key lacks the scope %s required here.", scope)
	}
	return nil
}

// limit applies the tenant's plan to the key and writes the RateLimit
// headers (draft-ietf-httpapi-ratelimit-headers) on every answer.
func (s *Server) limit(w http.ResponseWriter, r *http.Request, p *principal) error {
	plan := p.Tenant.Plan
	d, err := s.RateLimiter.Allow(r.Context(), "key:"+p.Key.ID, plan)
	if err != nil {
		return fmt.Errorf("rate limit: %w", err)
	}
	h := w.Header()
	h.Set("RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", plan.Name, plan.Burst, ceilSeconds(time.Duration(plan.Window()*float64(time.Second)))))
	h.Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%d", plan.Name, d.Remaining, ceilSeconds(d.Reset)))
	if !d.Allowed {
		retry := max(1, ceilSeconds(d.RetryAfter))
		e := sello.Errorf(sello.CodeRateLimited, "Rate limit of plan %q exceeded (%g requests/s, burst %d). Retry after %d s.", plan.Name, plan.Rate, plan.Burst, retry)
		e.RetryAfterSeconds = retry
		return e
	}
	return nil
}

func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// requireJSON checks the request's Content-Type: application/json, with
// an optional charset that must be UTF-8. Media type and charset names are
// case-insensitive (RFC 9110 §8.3.1, §8.3.2; mime.ParseMediaType lowers
// the type and the parameter names). Returns UNSUPPORTED_MEDIA_TYPE.
func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return sello.Errorf(sello.CodeUnsupportedMediaType, "The request has no Content-Type: send the JSON body with Content-Type: application/json.")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return sello.Errorf(sello.CodeUnsupportedMediaType, "Content-Type must be application/json, not %s.", strconv.Quote(ct))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return sello.Errorf(sello.CodeUnsupportedMediaType, "Only the utf-8 charset is accepted, not %q.", cs)
	}
	return nil
}

// withReceiverCase lowercases the path of a receiver service below
// /{env}/receptor/{rnc} (and "receptor" itself), since DGII and suppliers
// call them in any case (FACTS §2.1, §2.2: ValidacionCertificado,
// Semilla). The environment's case is the handler's to read.
func withReceiverCase(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.SplitN(r.URL.Path, "/", 5) // "", env, receptor, rnc, rest
		if len(parts) == 5 && strings.EqualFold(parts[2], "receptor") {
			parts[2], parts[4] = "receptor", strings.ToLower(parts[4])
			if p := strings.Join(parts, "/"); p != r.URL.Path {
				r2 := r.Clone(r.Context())
				r2.URL.Path, r2.URL.RawPath = p, ""
				r = r2
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hasPortalCookie reports whether the request carries the portal's session
// cookie (sello.SessionCookie or sello.HostSessionCookie).
func hasPortalCookie(r *http.Request) bool {
	for _, name := range []string{sello.SessionCookie, sello.HostSessionCookie} {
		if _, err := r.Cookie(name); err == nil {
			return true
		}
	}
	return false
}
