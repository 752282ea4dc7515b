package portal

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// accountForm is what the account page shows.
type accountForm struct {
	// PasswordError is the password form's error.
	PasswordError string
	// SecondFactorRequired: a company of the user requires a second
	// factor, so it cannot be removed.
	SecondFactorRequired bool
	RemoveError          string
}

// handleAccount shows the user's account: language, password, second
// factor, sessions.
func (s *Server) handleAccount(w http.ResponseWriter, r *http.Request, v *visit) error {
	f, err := s.accountForm(r.Context(), v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, accountPage(s.layout(r, v, v.T("Account")), f))
	return nil
}

func (s *Server) accountForm(ctx context.Context, v *visit) (accountForm, error) {
	req, err := s.secondFactorRequired(ctx, v)
	return accountForm{SecondFactorRequired: req}, err
}

// secondFactorRequired reports whether any company of the user requires
// a second factor.
func (s *Server) secondFactorRequired(ctx context.Context, v *visit) (bool, error) {
	for _, m := range v.Memberships {
		if req, err := s.Store.SecondFactorRequired(ctx, m.TenantID); err != nil || req {
			return req, err
		}
	}
	return false, nil
}

// handleChangePassword changes the password: the current one is asked
// again. Every other session of the user ends, and this one is replaced.
func (s *Server) handleChangePassword(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	fail := func(status int, msg string) error {
		f, err := s.accountForm(ctx, v)
		if err != nil {
			return err
		}
		f.PasswordError = msg
		s.render(w, r, status, accountPage(s.layout(r, v, v.T("Account")), f))
		return nil
	}
	if wait, err := s.throttle(ctx, "portal-password-change:"+v.User.ID, loginAccountPlan); err != nil {
		return err
	} else if wait > 0 {
		return fail(http.StatusTooManyRequests, tooMany(v, wait))
	}
	ok, err := sello.CheckPassword(r.PostFormValue("current"), v.User.PasswordHash)
	if err != nil {
		return fmt.Errorf("check password: %w", err)
	} else if !ok {
		return fail(http.StatusUnauthorized, v.T("The current password is wrong."))
	}
	password := r.PostFormValue("password")
	if err := checkNewPassword(v, password, r.PostFormValue("confirm"), v.User.Email); err != nil {
		return fail(http.StatusBadRequest, err.Error())
	}
	hash, err := sello.HashPassword(password)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	u, err := s.Store.FindUserByID(ctx, v.User.ID)
	if err != nil {
		return err
	}
	u.PasswordHash = hash
	if err := s.Store.UpdateUser(ctx, u); err != nil {
		return err
	}
	v.User = u
	if err := s.rotateSession(ctx, w, r, v, nil); err != nil {
		return err
	}
	if err := s.Store.RevokeUserSessions(ctx, u.ID, v.Session.ID, s.now()); err != nil {
		return err
	}
	if err := s.auditUser(ctx, v, u, "user.password_changed", nil, nil); err != nil {
		return err
	}
	s.redirect(w, r, accountPath+"?done=password")
	return nil
}

// handleLanguage switches the portal's language: stored in the user once
// logged in (a state change like any other: CSRF token required), in a
// cookie before.
func (s *Server) handleLanguage(w http.ResponseWriter, r *http.Request) {
	v := &visit{Lang: s.guestLang(r), Addr: s.clientAddr(r)}
	lang := i18n.ParseLang(r.PostFormValue("lang"))
	next := safeNext(r.PostFormValue("next"))
	state, err := s.loadVisit(r.Context(), r, v)
	if err != nil {
		s.writeError(w, r, v, err)
		return
	}
	if state == sessionOK || state == sessionPending {
		if !checkCSRF(r, v.Session) {
			s.writeError(w, r, v, pageError(sello.CodeInsufficientScope, v.T("This form has expired. Reload the page and try again.")))
			return
		}
		u, err := s.Store.FindUserByID(r.Context(), v.User.ID)
		if err == nil && u.Language != string(lang) {
			u.Language = string(lang)
			err = s.Store.UpdateUser(r.Context(), u)
		}
		if err != nil {
			s.writeError(w, r, v, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: langCookie, Value: string(lang), Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, Secure: s.https() || !s.InsecureCookies, SameSite: http.SameSiteLaxMode})
	s.redirect(w, r, next)
}

// enrolForm is what the second factor's enrolment page shows.
type enrolForm struct {
	// Secret is the new secret in base32, QR its otpauth URI as an SVG;
	// empty before the user starts.
	Secret string
	QR     string
	// Codes are the recovery codes, shown once when the factor is
	// confirmed.
	Codes []string
	// Required: the company requires a second factor (the user cannot go on
	// without it).
	Required bool
	Error    string
}

// handleEnrolForm shows the enrolment: a button that makes a secret, or,
// once made, its QR code and the form for the first code. A session
// waiting for a second factor the user already has cannot enrol another.
func (s *Server) handleEnrolForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := enrolAllowed(v); err != nil {
		return err
	}
	f, err := s.enrolForm(r.Context(), v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, enrolPage(s.layout(r, v, v.T("Second factor")), f))
	return nil
}

// enrolAllowed refuses the enrolment to a session that has not passed the
// factor the user has: enrolling a new one would skip it.
func enrolAllowed(v *visit) error {
	if v.User.TOTPConfirmedAt != nil && v.Session.SecondFactorAt == nil {
		return pageError(sello.CodeUnauthenticated, v.T("Pass your second factor first."))
	}
	return nil
}

func (s *Server) enrolForm(ctx context.Context, v *visit) (enrolForm, error) {
	req, err := s.secondFactorRequired(ctx, v)
	if err != nil {
		return enrolForm{}, err
	}
	f := enrolForm{Required: req}
	if v.User.TOTPSecret != nil && v.User.TOTPConfirmedAt == nil {
		secret, err := sello.OpenTOTPSecret(s.MasterKey, v.User.ID, v.User.TOTPSecret)
		if err != nil {
			return f, fmt.Errorf("open TOTP secret: %w", err)
		}
		f.Secret = sello.TOTPSecretText(secret)
		if f.QR, err = qrSVG(sello.TOTPURI("Sello", v.User.Email, secret), v.T("QR code of the second factor, for your authenticator app")); err != nil {
			return f, err
		}
	}
	return f, nil
}

// handleEnrolStart makes a new TOTP secret for the user (not counted until
// confirmed with a code) and shows it.
func (s *Server) handleEnrolStart(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := enrolAllowed(v); err != nil {
		return err
	}
	if v.User.TOTPConfirmedAt != nil {
		s.redirect(w, r, accountPath)
		return nil
	}
	u, err := s.Store.FindUserByID(r.Context(), v.User.ID)
	if err != nil {
		return err
	}
	u.TOTPSecret = sello.SealTOTPSecret(s.MasterKey, u.ID, sello.NewTOTPSecret())
	u.TOTPConfirmedAt = nil
	if err := s.Store.UpdateUser(r.Context(), u); err != nil {
		return err
	}
	s.redirect(w, r, enrolPath)
	return nil
}

// handleEnrolConfirm checks the first code of the new secret: right, the
// factor counts from now on, the recovery codes are shown once, and the
// session is replaced by one past the second factor.
func (s *Server) handleEnrolConfirm(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	if err := enrolAllowed(v); err != nil {
		return err
	}
	u, err := s.Store.FindUserByID(ctx, v.User.ID)
	if err != nil {
		return err
	}
	if u.TOTPSecret == nil || u.TOTPConfirmedAt != nil {
		s.redirect(w, r, enrolPath)
		return nil
	}
	v.User = u
	f, err := s.enrolForm(ctx, v)
	if err != nil {
		return err
	}
	if wait, err := s.throttle(ctx, "portal-enrol:"+u.ID, loginAccountPlan); err != nil {
		return err
	} else if wait > 0 {
		f.Error = tooMany(v, wait)
		s.render(w, r, http.StatusTooManyRequests, enrolPage(s.layout(r, v, v.T("Second factor")), f))
		return nil
	}
	secret, err := sello.OpenTOTPSecret(s.MasterKey, u.ID, u.TOTPSecret)
	if err != nil {
		return fmt.Errorf("open TOTP secret: %w", err)
	}
	now := s.now()
	step, ok := sello.CheckTOTP(secret, r.PostFormValue("code"), now, u.TOTPLastStep)
	if ok {
		if err := s.Store.UseTOTPStep(ctx, u.ID, step); sello.ErrorCodeOf(err) == sello.CodeConflict {
			ok = false
		} else if err != nil {
			return err
		}
	}
	if !ok {
		f.Error = v.T("The code is wrong or was used already.")
		s.render(w, r, http.StatusUnauthorized, enrolPage(s.layout(r, v, v.T("Second factor")), f))
		return nil
	}
	codes, hashes := sello.NewRecoveryCodes()
	if u, err = s.Store.FindUserByID(ctx, u.ID); err != nil {
		return err
	}
	u.TOTPConfirmedAt, u.RecoveryCodeHashes = &now, hashes
	if err := s.Store.UpdateUser(ctx, u); err != nil {
		return err
	}
	v.User = u
	if err := s.rotateSession(ctx, w, r, v, func(n *sello.Session) { n.SecondFactorAt = &now }); err != nil {
		return err
	}
	if err := s.auditUser(ctx, v, u, "user.second_factor_enabled", nil, nil); err != nil {
		return err
	}
	v.Pending = false
	s.render(w, r, http.StatusOK, enrolPage(s.layout(r, v, v.T("Second factor")), enrolForm{Codes: codes}))
	return nil
}

// handleEnrolRemove turns the second factor off, with the password asked
// again; not while a company of the user requires one.
func (s *Server) handleEnrolRemove(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	f, err := s.accountForm(ctx, v)
	if err != nil {
		return err
	}
	if f.SecondFactorRequired {
		return pageError(sello.CodeConflict, v.T("A company of yours requires a second factor: it cannot be turned off."))
	}
	ok, err := sello.CheckPassword(r.PostFormValue("current"), v.User.PasswordHash)
	if err != nil {
		return fmt.Errorf("check password: %w", err)
	} else if !ok {
		f.RemoveError = v.T("The current password is wrong.")
		s.render(w, r, http.StatusUnauthorized, accountPage(s.layout(r, v, v.T("Account")), f))
		return nil
	}
	u, err := s.Store.FindUserByID(ctx, v.User.ID)
	if err != nil {
		return err
	}
	u.TOTPSecret, u.TOTPConfirmedAt, u.RecoveryCodeHashes = nil, nil, nil
	if err := s.Store.UpdateUser(ctx, u); err != nil {
		return err
	}
	v.User = u
	if err := s.rotateSession(ctx, w, r, v, nil); err != nil {
		return err
	}
	if err := s.auditUser(ctx, v, u, "user.second_factor_removed", nil, nil); err != nil {
		return err
	}
	s.redirect(w, r, accountPath+"?done=second-factor-off")
	return nil
}

// auditUser records a change of the user's own account in the audit log
// of each of their companies, whose owners may all want to know.
func (s *Server) auditUser(ctx context.Context, v *visit, u *sello.User, action string, before, after []byte) error {
	ms, err := s.Store.FindUserMemberships(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := s.Store.AppendAudit(ctx, &sello.AuditEntry{
			TenantID: m.TenantID, ActorID: u.ID, ActorEmail: u.Email, Action: action, Target: u.ID,
			Address: v.Addr.String(), Before: before, After: after,
		}); err != nil {
			return fmt.Errorf("audit %s: %w", action, err)
		}
	}
	return nil
}

func jsonOf(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// flashMessage is the message of an action just done (the ?done= of the
// page it redirected to); "" for an unknown one.
func flashMessage(v *visit, done string) string {
	if key, ok := flashKeys[done]; ok {
		return v.T(key)
	}
	return ""
}

var flashKeys = map[string]string{
	"logout":            "You have signed out.",
	"logout-all":        "You have signed out on every device.",
	"password":          "Your password was changed. Your other sessions have ended.",
	"password-reset":    "Your password was changed. Sign in with it.",
	"joined":            "You have joined the company.",
	"second-factor-off": "The second factor is off.",
}
