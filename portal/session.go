package portal

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// touchEvery is how stale a session's LastSeenAt may get before a request
// stores it again: idle expiry is exact to within it, and a page does not
// write to the store on every request.
const touchEvery = time.Minute

// startSession creates a session for user in tenant, with a new token and
// CSRF token, sets its cookie, and revokes the session the request came
// with, if any: a login or a change of privilege always gets a new id,
// so a session id planted before (fixation) is worth nothing after.
//
// expires is the absolute expiry: zero for a new login (now +
// AbsoluteTimeout); a rotated session keeps its login's.
func (s *Server) startSession(ctx context.Context, w http.ResponseWriter, r *http.Request, user *sello.User, tenantID string, secondFactorAt *time.Time, expires time.Time) (*sello.Session, error) {
	now := s.now()
	if expires.IsZero() {
		expires = now.Add(s.absoluteTimeout())
	}
	token, hash := sello.NewToken()
	csrf, _ := sello.NewToken()
	sess := &sello.Session{
		TokenHash:      hash,
		UserID:         user.ID,
		TenantID:       tenantID,
		CSRFToken:      csrf,
		SecondFactorAt: secondFactorAt,
		Address:        s.clientAddr(r),
		UserAgent:      truncate(r.UserAgent(), 256),
		CreatedAt:      now,
		LastSeenAt:     now,
		ExpiresAt:      expires,
	}
	if err := s.Store.CreateSession(ctx, sess); err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	if old, err := s.sessionFromCookie(ctx, r); err == nil && old.RevokedAt == nil {
		if err := s.Store.RevokeSession(ctx, old.ID, now); err != nil {
			return nil, fmt.Errorf("revoke the previous session: %w", err)
		}
	}
	s.setSessionCookie(w, token, expires.Sub(now))
	return sess, nil
}

// rotateSession replaces the visit's session with a new one (new id, token
// and CSRF token) for a change of privilege: a tenant switch, a second
// factor passed, a password changed. change edits the new session's tenant
// or second factor; its absolute expiry stays the login's.
func (s *Server) rotateSession(ctx context.Context, w http.ResponseWriter, r *http.Request, v *visit, change func(*sello.Session)) error {
	next := *v.Session
	if change != nil {
		change(&next)
	}
	sess, err := s.startSession(ctx, w, r, v.User, next.TenantID, next.SecondFactorAt, v.Session.ExpiresAt)
	if err != nil {
		return err
	}
	v.Session = sess
	return nil
}

// setSessionCookie sets the session cookie: HttpOnly, SameSite=Lax,
// Secure unless InsecureCookies, the __Host- prefix over HTTPS. maxAge 0
// or less removes it.
func (s *Server) setSessionCookie(w http.ResponseWriter, token string, maxAge time.Duration) {
	c := &http.Cookie{
		Name:     s.cookieName(),
		Value:    token,
		Path:     "/",
		HttpOnly: true,
		Secure:   s.https() || !s.InsecureCookies,
		SameSite: http.SameSiteLaxMode,
		MaxAge:   int(maxAge / time.Second),
	}
	if maxAge <= 0 {
		c.Value, c.MaxAge = "", -1
	}
	http.SetCookie(w, c)
}

// sessionFromCookie finds the session of the request's cookie, whatever
// its state. Returns NOT_FOUND without a cookie or for an unknown token.
func (s *Server) sessionFromCookie(ctx context.Context, r *http.Request) (*sello.Session, error) {
	c, err := r.Cookie(s.cookieName())
	if err != nil || c.Value == "" {
		return nil, errNoSession
	}
	return s.Store.FindSessionByTokenHash(ctx, sello.HashToken(c.Value))
}

// errNoSession is sessionFromCookie's answer without a session: NOT_FOUND,
// never shown to anyone.
var errNoSession = &sello.Error{Code: sello.CodeNotFound}

// sessionState is why a session does or does not count.
type sessionState int

const (
	sessionNone    sessionState = iota // no cookie, or an unknown token
	sessionOK                          // live
	sessionEnded                       // revoked (logout), or expired idle or absolute
	sessionPending                     // live, waiting for the second factor
)

// loadVisit reads the request's session and fills v with its user, tenant
// and role. An expired session is revoked on the spot.
func (s *Server) loadVisit(ctx context.Context, r *http.Request, v *visit) (sessionState, error) {
	sess, err := s.sessionFromCookie(ctx, r)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return sessionNone, nil
	} else if err != nil {
		return sessionNone, err
	}
	now := s.now()
	if sess.RevokedAt != nil {
		return sessionEnded, nil
	}
	if !now.Before(sess.ExpiresAt) || now.Sub(sess.LastSeenAt) >= s.idleTimeout() {
		if err := s.Store.RevokeSession(ctx, sess.ID, now); err != nil {
			return sessionNone, fmt.Errorf("revoke expired session: %w", err)
		}
		return sessionEnded, nil
	}
	user, err := s.Store.FindUserByID(ctx, sess.UserID)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return sessionEnded, nil
	} else if err != nil {
		return sessionNone, err
	}
	ms, err := s.Store.FindUserMemberships(ctx, user.ID)
	if err != nil {
		return sessionNone, err
	}
	i := slices.IndexFunc(ms, func(m *sello.Membership) bool { return m.TenantID == sess.TenantID })
	if i < 0 {
		// Removed from the tenant since: the session is over.
		if err := s.Store.RevokeSession(ctx, sess.ID, now); err != nil {
			return sessionNone, fmt.Errorf("revoke session: %w", err)
		}
		return sessionEnded, nil
	}
	tenant, err := s.Store.FindTenantByID(ctx, sess.TenantID)
	if err != nil {
		return sessionNone, err
	}
	if now.Sub(sess.LastSeenAt) >= touchEvery {
		if err := s.Store.TouchSession(ctx, sess.ID, now); err != nil {
			return sessionNone, fmt.Errorf("touch session: %w", err)
		}
		sess.LastSeenAt = now
	}
	v.Session, v.User, v.Tenant, v.Role, v.Memberships = sess, user, tenant, ms[i].Role, ms
	v.Lang = i18n.ParseLang(user.Language)
	need, err := s.needsSecondFactor(ctx, user, tenant)
	if err != nil {
		return sessionNone, err
	}
	if need && sess.SecondFactorAt == nil {
		v.Pending = true
		return sessionPending, nil
	}
	return sessionOK, nil
}

// authed adapts the handler of a page that needs a live session: without
// one, a GET goes to the login (and comes back after it), anything else is
// refused; a session waiting for its second factor goes to it. A state
// change must carry the session's CSRF token.
func (s *Server) authed(h handlerFunc) http.Handler {
	return s.withSession(false, h)
}

// pending adapts the handler of a page that a session waiting for its
// second factor may see (the second factor itself, its enrolment, the
// logout), as well as a live one.
func (s *Server) pending(h handlerFunc) http.Handler {
	return s.withSession(true, h)
}

func (s *Server) withSession(allowPending bool, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &visit{Lang: s.guestLang(r), Addr: s.clientAddr(r)}
		state, err := s.loadVisit(r.Context(), r, v)
		if err != nil {
			s.writeError(w, r, v, err)
			return
		}
		switch {
		case state == sessionNone || state == sessionEnded:
			if state == sessionEnded {
				s.setSessionCookie(w, "", 0)
			}
			s.toLogin(w, r, v, state == sessionEnded)
			return
		case state == sessionPending && !allowPending:
			s.redirect(w, r, secondFactorPath)
			return
		}
		if !checkCSRF(r, v.Session) {
			s.writeError(w, r, v, pageError(sello.CodeInsufficientScope,
				v.T("This form has expired. Reload the page and try again.")))
			return
		}
		if err := h(w, r, v); err != nil {
			s.writeError(w, r, v, err)
		}
	})
}

// toLogin sends a visitor without a session to the login: a GET comes
// back to its page after it; any other method is refused with 401.
func (s *Server) toLogin(w http.ResponseWriter, r *http.Request, v *visit, expired bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		msg := v.T("Your session has ended. Sign in again.")
		s.writeError(w, r, v, pageError(sello.CodeUnauthenticated, msg))
		return
	}
	q := url.Values{}
	if r.URL.Path != "/" {
		q.Set("next", r.URL.RequestURI())
	}
	if expired {
		q.Set("ended", "1")
	}
	target := loginPath
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	s.redirect(w, r, target)
}

// redirect sends the browser to path with 303 See Other; to htmx, which
// would follow it inside the page, with HX-Redirect.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, path string) {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", path)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// requireRole refuses (403) a visitor whose role in the tenant is none of
// roles. Page handlers call it first.
func requireRole(v *visit, roles ...sello.Role) error {
	if slices.Contains(roles, v.Role) {
		return nil
	}
	return pageError(sello.CodeInsufficientScope, v.T("Your role in this company does not allow this."))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
