package portal

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// The login's throttles (RateLimiter token buckets). Per account: 5
// attempts at once, then one every 3 minutes; per address (an office
// behind one NAT has several people): 20 at once, then one every 6
// seconds. Second-factor codes count against the account's bucket of
// their own.
var (
	loginAccountPlan = sello.RatePlan{Name: "portal-login-account", Rate: 1.0 / 180, Burst: 5}
	loginAddrPlan    = sello.RatePlan{Name: "portal-login-address", Rate: 1.0 / 6, Burst: 20}
)

// loginForm is what the login page shows.
type loginForm struct {
	Email, Next string
	// Error is the form's error, Notice a message above it (a session that
	// ended, a password just changed).
	Error, Notice string
}

// handleLoginForm shows the login, or goes home for a live session.
func (s *Server) handleLoginForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	if state, err := s.loadVisit(r.Context(), r, &visit{Lang: v.Lang}); err == nil && state == sessionOK {
		s.redirect(w, r, safeNext(r.URL.Query().Get("next")))
		return nil
	}
	f := loginForm{Next: r.URL.Query().Get("next")}
	if r.URL.Query().Get("ended") != "" {
		f.Notice = v.T("Your session has ended. Sign in again.")
	}
	s.render(w, r, http.StatusOK, loginPage(s.layout(r, v, v.T("Sign in")), f))
	return nil
}

// handleLogin checks the email and password and starts a session: past
// the second factor at once for a user without one, else waiting for it.
// Attempts are throttled per address and per account, whether they
// succeed or not; a wrong email and a wrong password get the same answer
// in the same time.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	f := loginForm{Email: strings.TrimSpace(r.PostFormValue("email")), Next: r.PostFormValue("next")}
	fail := func(status int, msg string) error {
		f.Error = msg
		s.render(w, r, status, loginPage(s.layout(r, v, v.T("Sign in")), f))
		return nil
	}
	if wait, err := s.throttle(ctx, "portal-login-address:"+addrKey(v.Addr), loginAddrPlan); err != nil {
		return err
	} else if wait > 0 {
		return fail(http.StatusTooManyRequests, tooMany(v, wait))
	}
	email, err := sello.NormalizeEmail(f.Email)
	if err != nil {
		return fail(http.StatusUnauthorized, v.T("The email or the password is wrong."))
	}
	if wait, err := s.throttle(ctx, "portal-login-account:"+email, loginAccountPlan); err != nil {
		return err
	} else if wait > 0 {
		return fail(http.StatusTooManyRequests, tooMany(v, wait))
	}
	u, err := s.Store.FindUserByEmail(ctx, email)
	if err != nil && sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	hash := ""
	if u != nil {
		hash = u.PasswordHash
	}
	ok, err := sello.CheckPassword(r.PostFormValue("password"), hash)
	if err != nil {
		return fmt.Errorf("check password: %w", err)
	}
	if !ok {
		return fail(http.StatusUnauthorized, v.T("The email or the password is wrong."))
	}
	ms, err := s.Store.FindUserMemberships(ctx, u.ID)
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return fail(http.StatusForbidden, v.T("This user belongs to no company any more. Ask a company's owner for an invitation."))
	}
	sess, err := s.startSession(ctx, w, r, u, ms[0].TenantID, nil, time.Time{})
	if err != nil {
		return err
	}
	next := safeNext(f.Next)
	tenant, err := s.Store.FindTenantByID(ctx, sess.TenantID)
	if err != nil {
		return err
	}
	if need, err := s.needsSecondFactor(ctx, u, tenant); err != nil {
		return err
	} else if need {
		s.redirect(w, r, secondFactorPath+"?next="+url.QueryEscape(next))
		return nil
	}
	s.redirect(w, r, next)
	return nil
}

// throttle takes one attempt from key's bucket and returns how long to
// wait when there is none left (zero: go on).
func (s *Server) throttle(ctx context.Context, key string, plan sello.RatePlan) (time.Duration, error) {
	d, err := s.RateLimiter.Allow(ctx, key, plan)
	if err != nil {
		return 0, fmt.Errorf("throttle: %w", err)
	}
	if d.Allowed {
		return 0, nil
	}
	return max(d.RetryAfter, time.Second), nil
}

// tooMany is the message of a throttled attempt.
func tooMany(v *visit, wait time.Duration) string {
	if wait > time.Minute {
		return v.T("Too many attempts. For your security, wait %d minutes and try again.", int(math.Ceil(wait.Minutes())))
	}
	return v.T("Too many attempts. For your security, wait %d seconds and try again.", int(math.Ceil(wait.Seconds())))
}

// needsSecondFactor reports whether the user's sessions in tenant must pass
// a second factor: the user has one, or the tenant requires it.
func (s *Server) needsSecondFactor(ctx context.Context, u *sello.User, tenant *sello.Tenant) (bool, error) {
	if u.TOTPConfirmedAt != nil {
		return true, nil
	}
	return s.Store.SecondFactorRequired(ctx, tenant.ID)
}

// secondFactorForm is what the second factor's page shows.
type secondFactorForm struct {
	Next, Error string
}

// handleSecondFactorForm asks for the code of a session waiting for its
// second factor; a user who has none yet (the tenant requires one) sets it
// up first.
func (s *Server) handleSecondFactorForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	if v.User.TOTPConfirmedAt == nil {
		s.redirect(w, r, enrolPath)
		return nil
	}
	if v.Session.SecondFactorAt != nil {
		s.redirect(w, r, safeNext(r.URL.Query().Get("next")))
		return nil
	}
	f := secondFactorForm{Next: r.URL.Query().Get("next")}
	s.render(w, r, http.StatusOK, secondFactorPage(s.layout(r, v, v.T("Second factor")), f))
	return nil
}

// handleSecondFactor checks a TOTP or recovery code and, right, replaces
// the session with one past the second factor (a new id: a change of
// privilege).
func (s *Server) handleSecondFactor(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	if v.User.TOTPConfirmedAt == nil {
		s.redirect(w, r, enrolPath)
		return nil
	}
	f := secondFactorForm{Next: r.PostFormValue("next")}
	fail := func(status int, msg string) error {
		f.Error = msg
		s.render(w, r, status, secondFactorPage(s.layout(r, v, v.T("Second factor")), f))
		return nil
	}
	if wait, err := s.throttle(ctx, "portal-second-factor:"+v.User.ID, loginAccountPlan); err != nil {
		return err
	} else if wait > 0 {
		return fail(http.StatusTooManyRequests, tooMany(v, wait))
	}
	err := sello.CheckSecondFactor(ctx, s.Store, s.MasterKey, v.User, r.PostFormValue("code"), s.now())
	if sello.ErrorCodeOf(err) == sello.CodeUnauthenticated {
		return fail(http.StatusUnauthorized, v.T("The code is wrong or was used already."))
	} else if err != nil {
		return err
	}
	now := s.now()
	if err := s.rotateSession(ctx, w, r, v, func(n *sello.Session) { n.SecondFactorAt = &now }); err != nil {
		return err
	}
	s.redirect(w, r, safeNext(f.Next))
	return nil
}

// handleLogout ends the session.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := s.Store.RevokeSession(r.Context(), v.Session.ID, s.now()); err != nil {
		return err
	}
	s.setSessionCookie(w, "", 0)
	s.redirect(w, r, loginPath+"?done=logout")
	return nil
}

// handleLogoutAll ends every session of the user, on every device.
func (s *Server) handleLogoutAll(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := s.Store.RevokeUserSessions(r.Context(), v.User.ID, "", s.now()); err != nil {
		return err
	}
	if err := s.auditUser(r.Context(), v, v.User, "user.signed_out_everywhere", nil, nil); err != nil {
		return err
	}
	s.setSessionCookie(w, "", 0)
	s.redirect(w, r, loginPath+"?done=logout-all")
	return nil
}

// handleTenantSwitch moves the session to another of the user's companies,
// as a new session (the role may differ: a change of privilege).
func (s *Server) handleTenantSwitch(w http.ResponseWriter, r *http.Request, v *visit) error {
	id := r.PostFormValue("tenant")
	if !contains(tenantIDs(v.Memberships), id) {
		return pageError(sello.CodeNotFound, v.T("You do not belong to that company."))
	}
	if err := s.rotateSession(r.Context(), w, r, v, func(n *sello.Session) { n.TenantID = id }); err != nil {
		return err
	}
	s.redirect(w, r, "/")
	return nil
}

func tenantIDs(ms []*sello.Membership) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.TenantID
	}
	return ids
}
