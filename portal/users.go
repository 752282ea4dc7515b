package portal

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// The users' page (Usuarios), for owners only: the company's members and
// their roles; invitations by a one-time link that the Mailer sends;
// changing a member's role and removing a member (never the last owner:
// the store refuses, in the change's transaction); requiring a second
// factor of every member.

// The users' paths.
const (
	usersPath       = "/portal/usuarios"
	invitePath      = "/portal/usuarios/invitar"
	requireTOTPPath = "/portal/usuarios/segundo-factor"
	userRolePage    = "rol"
	userRemovePage  = "quitar"
)

// userPath is the path of one of a member's forms: rol or quitar.
func userPath(id, page string) string { return usersPath + "/" + url.PathEscape(id) + "/" + page }

// An invitation to one email is throttled as a password reset is (3 at
// once, then one every 10 minutes), so that the portal cannot flood a
// mailbox.
var inviteEmailPlan = sello.RatePlan{Name: "portal-invite-email", Rate: 1.0 / 600, Burst: 3}

// member is one member as the page shows them.
type member struct {
	*sello.Membership
	// SecondFactor: the user has a confirmed second factor.
	SecondFactor bool
	// You: the member is the visitor.
	You bool
}

// usersView is what the users' page shows.
type usersView struct {
	Members []member
	// SecondFactorRequired is the company's setting.
	SecondFactorRequired bool
	Invite               inviteForm
	// Error is a refused change's message (the last owner's demotion).
	Error string
}

// inviteForm is the invitation form as the owner filled it.
type inviteForm struct {
	Email string
	Role  sello.Role
	Error string
}

// handleUsers lists the company's members, for owners.
func (s *Server) handleUsers(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	return s.renderUsers(w, r, v, http.StatusOK, usersView{Invite: inviteForm{Role: sello.RoleDeveloper}})
}

func (s *Server) renderUsers(w http.ResponseWriter, r *http.Request, v *visit, status int, view usersView) error {
	ctx := r.Context()
	ms, err := s.Store.FindMemberships(ctx, v.Tenant.ID)
	if err != nil {
		return err
	}
	for _, m := range ms {
		u, err := s.Store.FindUserByID(ctx, m.UserID)
		if err != nil {
			return err
		}
		view.Members = append(view.Members, member{Membership: m, SecondFactor: u.TOTPConfirmedAt != nil, You: u.ID == v.User.ID})
	}
	if view.SecondFactorRequired, err = s.Store.SecondFactorRequired(ctx, v.Tenant.ID); err != nil {
		return err
	}
	s.render(w, r, status, usersPage(s.layout(r, v, v.T("Users")), view))
	return nil
}

// findMember is the company's member with user id id: NOT_FOUND for a
// user who is not one (of another company, or none).
func (s *Server) findMember(ctx context.Context, v *visit, id string) (*sello.Membership, error) {
	ms, err := s.Store.FindMemberships(ctx, v.Tenant.ID)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.UserID == id {
			return m, nil
		}
	}
	return nil, pageError(sello.CodeNotFound, v.T("This company has no such user."))
}

// handleInvite sends a one-time link, valid sello.InviteTTL, through
// which the person joins the company with the role (acceptInvitation).
func (s *Server) handleInvite(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	ctx := r.Context()
	f := inviteForm{Email: strings.TrimSpace(r.PostFormValue("email")), Role: sello.Role(r.PostFormValue("role"))}
	fail := func(status int, msg string) error {
		f.Error = msg
		return s.renderUsers(w, r, v, status, usersView{Invite: f})
	}
	email, err := sello.NormalizeEmail(f.Email)
	if err != nil {
		return fail(http.StatusBadRequest, errorMessage(v.Lang, err))
	}
	role, err := sello.ParseRole(string(f.Role))
	if err != nil {
		return fail(http.StatusBadRequest, errorMessage(v.Lang, err))
	}
	ms, err := s.Store.FindMemberships(ctx, v.Tenant.ID)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Email == email {
			return fail(http.StatusConflict, v.T("%s is a member of the company already: change their role in the list instead.", email))
		}
	}
	if wait, err := s.throttle(ctx, "portal-invite-email:"+v.Tenant.ID+":"+email, inviteEmailPlan); err != nil {
		return err
	} else if wait > 0 {
		return fail(http.StatusTooManyRequests, tooMany(v, wait))
	}
	token, hash := sello.NewToken()
	link := &sello.OneTimeLink{TokenHash: hash, Purpose: sello.LinkInvite, Email: email, TenantID: v.Tenant.ID, Role: role,
		CreatedBy: v.User.ID, ExpiresAt: s.now().Add(sello.InviteTTL)}
	if err := s.Store.CreateLink(ctx, link); err != nil {
		return err
	}
	// The invitation is in the invitee's language when they have a user,
	// else in the owner's.
	lang := v.Lang
	if u, err := s.Store.FindUserByEmail(ctx, email); err == nil {
		lang = i18n.ParseLang(u.Language)
	} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	company := v.Tenant.Name + " (RNC " + v.Tenant.RNC + ")"
	linkURL := sello.LinkURL(s.URL.String(), token)
	if err := s.Mailer.Send(ctx, Mail{
		To:      email,
		Subject: i18n.T(lang, "Sello: an invitation to %s", v.Tenant.Name),
		Body:    i18n.T(lang, "%s invites you to work on Sello for %s, as %s. Open this link within 24 hours to join: %s\nIf you did not expect it, ignore this message.", v.User.Email, company, i18n.T(lang, roleKeys[role]), linkURL),
		Link:    linkURL,
		Purpose: sello.LinkInvite,
	}); err != nil {
		return fmt.Errorf("mail invitation: %w", err)
	}
	if err := s.audit(ctx, v, "user.invited", link.ID, nil,
		jsonOf(map[string]any{"email": email, "role": role, "expiresAt": link.ExpiresAt})); err != nil {
		return err
	}
	s.redirect(w, r, usersPath+"?done=invited")
	return nil
}

// handleUserRole changes a member's role. The member's sessions end (a
// change of privilege: they sign in again with the new role); the owner's
// own change replaces the owner's session and ends the others. The last
// owner keeps the role: the store refuses with CONFLICT, whose message
// the page shows.
func (s *Server) handleUserRole(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	ctx := r.Context()
	m, err := s.findMember(ctx, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	role, err := sello.ParseRole(r.PostFormValue("role"))
	if err != nil {
		return err
	}
	if role == m.Role {
		s.redirect(w, r, usersPath)
		return nil
	}
	before := map[string]any{"email": m.Email, "role": m.Role}
	err = s.Store.PutMembership(ctx, &sello.Membership{TenantID: v.Tenant.ID, UserID: m.UserID, Role: role})
	if sello.ErrorCodeOf(err) == sello.CodeConflict {
		return s.renderUsers(w, r, v, http.StatusConflict, usersView{Invite: inviteForm{Role: sello.RoleDeveloper}, Error: errorMessage(v.Lang, err)})
	} else if err != nil {
		return err
	}
	if err := s.audit(ctx, v, "user.role_changed", m.UserID, jsonOf(before), jsonOf(map[string]any{"email": m.Email, "role": role})); err != nil {
		return err
	}
	if m.UserID != v.User.ID {
		if err := s.Store.RevokeUserSessions(ctx, m.UserID, "", s.now()); err != nil {
			return err
		}
		s.redirect(w, r, usersPath+"?done=role-changed")
		return nil
	}
	v.Role = role
	if err := s.rotateSession(ctx, w, r, v, nil); err != nil {
		return err
	}
	if err := s.Store.RevokeUserSessions(ctx, v.User.ID, v.Session.ID, s.now()); err != nil {
		return err
	}
	// No longer an owner: the users' page is not theirs any more.
	s.redirect(w, r, "/?done=own-role-changed")
	return nil
}

// removeView confirms a member's removal.
type removeView struct {
	Member *sello.Membership
	You    bool
}

// handleUserRemoveForm asks to confirm a member's removal.
func (s *Server) handleUserRemoveForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	m, err := s.findMember(r.Context(), v, r.PathValue("id"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, removeUserPage(s.layout(r, v, v.T("Remove a user")), removeView{Member: m, You: m.UserID == v.User.ID}))
	return nil
}

// handleUserRemove removes a member from the company, once confirmed
// (confirm=yes): their sessions in it end at their next request. The
// last owner stays (CONFLICT, shown on the page).
func (s *Server) handleUserRemove(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	ctx := r.Context()
	m, err := s.findMember(ctx, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	if r.PostFormValue("confirm") != "yes" {
		s.redirect(w, r, userPath(m.UserID, userRemovePage))
		return nil
	}
	err = s.Store.DeleteMembership(ctx, v.Tenant.ID, m.UserID)
	if sello.ErrorCodeOf(err) == sello.CodeConflict {
		return s.renderUsers(w, r, v, http.StatusConflict, usersView{Invite: inviteForm{Role: sello.RoleDeveloper}, Error: errorMessage(v.Lang, err)})
	} else if err != nil {
		return err
	}
	if err := s.audit(ctx, v, "user.removed", m.UserID, jsonOf(map[string]any{"email": m.Email, "role": m.Role}), nil); err != nil {
		return err
	}
	if m.UserID == v.User.ID {
		// This session is over: the next page asks to sign in.
		s.redirect(w, r, "/")
		return nil
	}
	s.redirect(w, r, usersPath+"?done=user-removed")
	return nil
}

// handleRequireSecondFactor sets whether the company requires a second
// factor of every member (required=yes or no). Members without one set
// it up at their next page; those with one already pass it.
func (s *Server) handleRequireSecondFactor(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	ctx := r.Context()
	var want bool
	switch r.PostFormValue("required") {
	case "yes":
		want = true
	case "no":
	default:
		return pageError(sello.CodeInvalidRequest, v.T("Choose whether the company requires a second factor."))
	}
	was, err := s.Store.SecondFactorRequired(ctx, v.Tenant.ID)
	if err != nil {
		return err
	}
	if was != want {
		if err := s.Store.SetSecondFactorRequired(ctx, v.Tenant.ID, want); err != nil {
			return err
		}
		if err := s.audit(ctx, v, "tenant.second_factor_required", v.Tenant.ID,
			jsonOf(map[string]bool{"required": was}), jsonOf(map[string]bool{"required": want})); err != nil {
			return err
		}
	}
	done := "second-factor-optional"
	if want {
		done = "second-factor-required"
	}
	s.redirect(w, r, usersPath+"?done="+done)
	return nil
}

func init() {
	flashKeys["invited"] = "The invitation is sent. Its link works for 24 hours and only once."
	flashKeys["role-changed"] = "The role is changed. The user signs in again to work with it."
	flashKeys["own-role-changed"] = "Your role is changed."
	flashKeys["user-removed"] = "The user no longer belongs to the company."
	flashKeys["second-factor-required"] = "The company now requires a second factor: members without one set it up at their next page."
	flashKeys["second-factor-optional"] = "The company no longer requires a second factor."
}

// roleDescriptionKeys are the catalogue keys of what each role may do.
var roleDescriptionKeys = map[sello.Role]string{
	sello.RoleOwner:      "everything, users and the audit log included",
	sello.RoleAdmin:      "everything but users and the audit log",
	sello.RoleDeveloper:  "API keys and webhooks; reads the rest",
	sello.RoleAccountant: "documents, received documents, sequences; reads the rest",
}
