package portal

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// A reset request is throttled per address as a login is, and per email
// (3 at once, then one every 10 minutes), so that the portal cannot be
// used to flood someone's mailbox.
var resetEmailPlan = sello.RatePlan{Name: "portal-reset-email", Rate: 1.0 / 600, Burst: 3}

// linkForm is what a one-time link's page shows: an invitation to join a
// company, or a password reset.
type linkForm struct {
	Token   string
	Purpose sello.LinkPurpose
	// Tenant and Role are the invitation's.
	Tenant string
	Role   sello.Role
	Email  string
	// NeedsPassword is false for an invitation of a user who has a password
	// already: joining does not change it.
	NeedsPassword bool
	Error         string
}

// findLink reads the link of the path's token without spending it.
func (s *Server) findLink(ctx context.Context, r *http.Request, v *visit) (*sello.OneTimeLink, *linkForm, error) {
	token := r.PathValue("token")
	link, err := s.Store.FindLink(ctx, sello.HashToken(token), s.now())
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return nil, nil, pageError(sello.CodeNotFound, v.T("This link does not work: it was used already, it expired, or it is incomplete. Ask for a new one."))
	} else if err != nil {
		return nil, nil, err
	}
	f := &linkForm{Token: token, Purpose: link.Purpose, Email: link.Email, Role: link.Role, NeedsPassword: true}
	if link.Purpose == sello.LinkInvite {
		t, err := s.Store.FindTenantByID(ctx, link.TenantID)
		if err != nil {
			return nil, nil, err
		}
		f.Tenant = t.Name + " (" + t.RNC + ")"
		u, err := s.Store.FindUserByEmail(ctx, link.Email)
		if err == nil && u.PasswordHash != "" {
			f.NeedsPassword = false
		} else if err != nil && sello.ErrorCodeOf(err) != sello.CodeNotFound {
			return nil, nil, err
		}
	}
	return link, f, nil
}

// handleLinkForm shows the page of a one-time link. Opening it does not
// spend it (a mail scanner may open it first): only its form does.
func (s *Server) handleLinkForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	_, f, err := s.findLink(r.Context(), r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, linkPage(s.layout(r, v, linkTitle(v, f)), *f))
	return nil
}

func linkTitle(v *visit, f *linkForm) string {
	if f.Purpose == sello.LinkInvite {
		return v.T("Invitation")
	}
	return v.T("Choose a new password")
}

// handleLink spends a one-time link: an invitation adds the user to the
// company (creating the user, with the chosen password, if new) and logs
// a new user in; a reset sets the password and ends every session of the
// user.
func (s *Server) handleLink(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	_, f, err := s.findLink(ctx, r, v)
	if err != nil {
		return err
	}
	password := r.PostFormValue("password")
	if f.NeedsPassword {
		if err := checkNewPassword(v, password, r.PostFormValue("confirm"), f.Email); err != nil {
			f.Error = err.Error()
			s.render(w, r, http.StatusBadRequest, linkPage(s.layout(r, v, linkTitle(v, f)), *f))
			return nil
		}
	}
	now := s.now()
	link, err := s.Store.UseLink(ctx, sello.HashToken(f.Token), now)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return pageError(sello.CodeNotFound, v.T("This link does not work: it was used already, it expired, or it is incomplete. Ask for a new one."))
	} else if err != nil {
		return err
	}
	var hash string
	if f.NeedsPassword {
		if hash, err = sello.HashPassword(password); err != nil {
			return fmt.Errorf("hash password: %w", err)
		}
	}
	if link.Purpose == sello.LinkReset {
		return s.resetPassword(w, r, v, link, hash)
	}
	return s.acceptInvitation(w, r, v, link, hash)
}

// acceptInvitation adds the link's user (created if new) to its tenant
// with its role.
func (s *Server) acceptInvitation(w http.ResponseWriter, r *http.Request, v *visit, link *sello.OneTimeLink, hash string) error {
	ctx := r.Context()
	u, err := s.Store.FindUserByEmail(ctx, link.Email)
	switch {
	case sello.ErrorCodeOf(err) == sello.CodeNotFound:
		u = &sello.User{Email: link.Email, PasswordHash: hash, Language: string(v.Lang)}
		if err := s.Store.CreateUser(ctx, u); err != nil {
			return err
		}
	case err != nil:
		return err
	case u.PasswordHash == "" && hash != "":
		u.PasswordHash = hash
		if err := s.Store.UpdateUser(ctx, u); err != nil {
			return err
		}
	default:
		hash = "" // an existing user's password stays as it is
	}
	m := &sello.Membership{TenantID: link.TenantID, UserID: u.ID, Role: link.Role}
	if err := s.Store.PutMembership(ctx, m); err != nil {
		return err
	}
	if err := s.Store.AppendAudit(ctx, &sello.AuditEntry{
		TenantID: link.TenantID, ActorID: u.ID, ActorEmail: u.Email, Action: "user.joined", Target: u.ID,
		Address: v.Addr.String(), After: jsonOf(map[string]string{"email": u.Email, "role": string(link.Role), "invitedBy": link.CreatedBy}),
	}); err != nil {
		return err
	}
	if hash == "" {
		// An existing user signs in with the password they have.
		s.redirect(w, r, loginPath+"?done=joined")
		return nil
	}
	if _, err := s.startSession(ctx, w, r, u, link.TenantID, nil, time.Time{}); err != nil {
		return err
	}
	tenant, err := s.Store.FindTenantByID(ctx, link.TenantID)
	if err != nil {
		return err
	}
	if need, err := s.needsSecondFactor(ctx, u, tenant); err != nil {
		return err
	} else if need {
		s.redirect(w, r, enrolPath)
		return nil
	}
	s.redirect(w, r, "/?done=joined")
	return nil
}

// resetPassword sets the link's user's password and ends all their
// sessions.
func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request, v *visit, link *sello.OneTimeLink, hash string) error {
	ctx := r.Context()
	u, err := s.Store.FindUserByEmail(ctx, link.Email)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return pageError(sello.CodeNotFound, v.T("This link does not work: it was used already, it expired, or it is incomplete. Ask for a new one."))
	} else if err != nil {
		return err
	}
	u.PasswordHash = hash
	if err := s.Store.UpdateUser(ctx, u); err != nil {
		return err
	}
	if err := s.Store.RevokeUserSessions(ctx, u.ID, "", s.now()); err != nil {
		return err
	}
	if err := s.auditUser(ctx, v, u, "user.password_reset", nil, nil); err != nil {
		return err
	}
	s.redirect(w, r, loginPath+"?done=password-reset")
	return nil
}

// checkNewPassword checks a new password and its confirmation against the
// policy (sello.CheckPasswordPolicy). The error's text is for the reader.
func checkNewPassword(v *visit, password, confirm, email string) error {
	if password != confirm {
		return textError(v.T("The two passwords are not the same."))
	}
	if err := sello.CheckPasswordPolicy(password, email); err != nil {
		return textError(errorMessage(v.Lang, err))
	}
	return nil
}

// textError is an error whose text a person reads as it is.
type textError string

func (e textError) Error() string { return string(e) }

// resetRequestForm is what the reset request's page shows.
type resetRequestForm struct {
	Email, Error string
	Sent         bool
}

// handleResetRequestForm asks for the email of the account to reset.
func (s *Server) handleResetRequestForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	s.render(w, r, http.StatusOK, resetRequestPage(s.layout(r, v, v.T("Forgot your password?")), resetRequestForm{}))
	return nil
}

// handleResetRequest mails a reset link to the email's user, if there is
// one: the answer is the same either way, so that the page does not tell
// who has an account.
func (s *Server) handleResetRequest(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	f := resetRequestForm{Email: strings.TrimSpace(r.PostFormValue("email"))}
	page := func(status int) error {
		s.render(w, r, status, resetRequestPage(s.layout(r, v, v.T("Forgot your password?")), f))
		return nil
	}
	if wait, err := s.throttle(ctx, "portal-login-address:"+addrKey(v.Addr), loginAddrPlan); err != nil {
		return err
	} else if wait > 0 {
		f.Error = tooMany(v, wait)
		return page(http.StatusTooManyRequests)
	}
	email, err := sello.NormalizeEmail(f.Email)
	if err != nil {
		f.Error = v.T("Enter the email you sign in with.")
		return page(http.StatusBadRequest)
	}
	if wait, err := s.throttle(ctx, "portal-reset-email:"+email, resetEmailPlan); err != nil {
		return err
	} else if wait > 0 {
		f.Error = tooMany(v, wait)
		return page(http.StatusTooManyRequests)
	}
	f.Sent = true
	u, err := s.Store.FindUserByEmail(ctx, email)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return page(http.StatusOK)
	} else if err != nil {
		return err
	}
	token, hash := sello.NewToken()
	link := &sello.OneTimeLink{TokenHash: hash, Purpose: sello.LinkReset, Email: u.Email, ExpiresAt: s.now().Add(sello.ResetTTL)}
	if err := s.Store.CreateLink(ctx, link); err != nil {
		return err
	}
	lang := i18n.ParseLang(u.Language)
	url := sello.LinkURL(s.URL.String(), token)
	if err := s.Mailer.Send(ctx, Mail{
		To:      u.Email,
		Subject: i18n.T(lang, "Sello: choose a new password"),
		Body:    i18n.T(lang, "Someone asked to reset the password of your Sello user. If it was you, open this link within an hour: %s\nIf it was not you, ignore this message: your password stays as it is.", url),
		Link:    url,
		Purpose: sello.LinkReset,
	}); err != nil {
		return fmt.Errorf("mail reset link: %w", err)
	}
	return page(http.StatusOK)
}
