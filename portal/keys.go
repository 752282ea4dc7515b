package portal

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/sello-do/sello"
)

// The API keys' pages (Claves API): the list, with each key's first and
// last use; issuing a key (its plaintext shown once); rotating one (spec
// §5, rule 6: a new key from the old one's settings, then a page that
// shows whether the clients have moved to it, then the old one revoked);
// revoking one after a confirmation. The rules are the domain's
// (sello.IssueAPIKey, sello.RotateAPIKey, sello.CheckAPIKeyRotation), as
// for sello keys create.

// keysPath is the list of the company's API keys; a key's pages are
// under it (keyPath).
const keysPath = "/portal/claves"

// keyPath is the path of one of a key's pages: rotar, rotacion, revocar.
func keyPath(id, page string) string { return keysPath + "/" + url.PathEscape(id) + "/" + page }

// rotationPath is the rotation page from key oldID to key newID.
func rotationPath(oldID, newID string) string {
	return keyPath(oldID, "rotacion") + "?" + url.Values{"nueva": {newID}}.Encode()
}

// keyManagers may issue, rotate and revoke keys; every member reads them
// (an accountant sees the list, never a key's plaintext).
var keyManagers = []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleDeveloper}

// canManageKeys reports whether the visitor may issue, rotate and revoke.
func canManageKeys(v *visit) bool { return contains(keyManagers, v.Role) }

// keyForm is the form that issues a key, as the person filled it.
type keyForm struct {
	Name        string
	Environment sello.Environment
	Scopes      []sello.Scope
	ExpiresOn   string
	Error       string
}

// keysView is what the list shows.
type keysView struct {
	// Groups are the keys by environment, in sello.Environments' order.
	Groups []keyGroup
	Form   keyForm
	// CanManage shows the forms (the handlers check the role again).
	CanManage bool
	// Now tells active keys from expired ones.
	Now time.Time
}

type keyGroup struct {
	Env  sello.Environment
	Keys []*sello.APIKey
}

// handleKeys lists the company's keys, and the form that issues one.
func (s *Server) handleKeys(w http.ResponseWriter, r *http.Request, v *visit) error {
	env := pageEnv(r)
	if e, err := sello.ParseEnvironment(r.URL.Query().Get("env")); err == nil {
		env = e
	}
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	return s.renderKeys(w, r, v, http.StatusOK, keyForm{Environment: env})
}

func (s *Server) renderKeys(w http.ResponseWriter, r *http.Request, v *visit, status int, f keyForm) error {
	keys, err := s.Store.FindAPIKeys(r.Context(), v.Tenant.ID)
	if err != nil {
		return err
	}
	view := keysView{Form: f, CanManage: canManageKeys(v), Now: s.now()}
	for _, env := range sello.Environments {
		g := keyGroup{Env: env}
		for _, k := range keys {
			if k.Environment == env {
				g.Keys = append(g.Keys, k)
			}
		}
		view.Groups = append(view.Groups, g)
	}
	s.render(w, r, status, keysPage(s.layout(r, v, v.T("API keys")), view))
	return nil
}

// handleKeyCreate issues a key and shows its plaintext, once: this answer
// is the only place it ever appears (pages are never cached).
func (s *Server) handleKeyCreate(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, keyManagers...); err != nil {
		return err
	}
	f := keyForm{
		Name:        r.PostFormValue("name"),
		Environment: sello.Environment(r.PostFormValue("environment")),
		ExpiresOn:   strings.TrimSpace(r.PostFormValue("expires")),
	}
	for _, sc := range r.PostForm["scopes"] {
		f.Scopes = append(f.Scopes, sello.Scope(sc))
	}
	req := sello.APIKeyRequest{Environment: f.Environment, Name: f.Name, Scopes: f.Scopes}
	if f.ExpiresOn != "" {
		d, err := sello.ParseDate(f.ExpiresOn)
		if err != nil {
			f.Error = errorMessage(v.Lang, err)
			return s.renderKeys(w, r, v, http.StatusBadRequest, f)
		}
		req.ExpiresOn = &d
	}
	k, plaintext, err := sello.IssueAPIKey(r.Context(), s.Store, v.Tenant.ID, req, s.now())
	if sello.ErrorCodeOf(err) == sello.CodeInvalidRequest {
		f.Error = errorMessage(v.Lang, err)
		return s.renderKeys(w, r, v, http.StatusBadRequest, f)
	} else if err != nil {
		return err
	}
	if err := s.audit(r.Context(), v, "api_key.created", k.ID, nil, jsonOf(keySummary(k))); err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, keyCreatedPage(s.layout(r, v, v.T("New API key")), k, plaintext))
	return nil
}

// handleKeyRotate issues the key that replaces the path's key, with its
// settings, and shows the new key's plaintext once beside the rotation's
// state.
func (s *Server) handleKeyRotate(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, keyManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	old, err := s.findKey(ctx, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	nw, plaintext, err := sello.RotateAPIKey(ctx, s.Store, v.Tenant.ID, old.ID, s.now())
	if err != nil {
		return err
	}
	if err := s.audit(ctx, v, "api_key.rotated", nw.ID, jsonOf(keySummary(old)), jsonOf(keySummary(nw))); err != nil {
		return err
	}
	rot, err := sello.NewAPIKeyRotation(old, nw, s.now())
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, rotationPage(s.layout(r, v, v.T("Key rotation")), rotationView{
		Rotation: rot, Plaintext: plaintext, CanManage: true, Now: s.now(),
	}))
	return nil
}

// rotationView is what the rotation page shows: the rotation's state, or
// (without a new key chosen) the keys that may be the new one.
type rotationView struct {
	Rotation *sello.APIKeyRotation
	// Plaintext is the new key's, on the answer that issued it only.
	Plaintext string
	// Old and Candidates, without a rotation: the old key and the other
	// active keys of its environment.
	Old        *sello.APIKey
	Candidates []*sello.APIKey
	CanManage  bool
	Now        time.Time
}

// handleKeyRotation shows how far the rotation from the path's key to
// ?nueva= has come: when the new key was first used, when and from where
// the old one was last used, and whether it is time to revoke it. Without
// ?nueva=, it offers the other active keys of the environment, or a new
// one.
func (s *Server) handleKeyRotation(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	ctx := r.Context()
	old, err := s.findKey(ctx, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	view := rotationView{CanManage: canManageKeys(v), Now: s.now()}
	if newID := r.URL.Query().Get("nueva"); newID != "" {
		if _, err := s.findKey(ctx, v, newID); err != nil {
			return err
		}
		if view.Rotation, err = sello.CheckAPIKeyRotation(ctx, s.Store, v.Tenant.ID, old.ID, newID, s.now()); err != nil {
			return err
		}
	} else {
		keys, err := s.Store.FindAPIKeys(ctx, v.Tenant.ID)
		if err != nil {
			return err
		}
		view.Old = old
		for _, k := range keys {
			if k.ID != old.ID && k.Environment == old.Environment && k.Active(s.now()) {
				view.Candidates = append(view.Candidates, k)
			}
		}
	}
	s.render(w, r, http.StatusOK, rotationPage(s.layout(r, v, v.T("Key rotation")), view))
	return nil
}

// revokeView is the revocation's confirmation.
type revokeView struct {
	Key *sello.APIKey
	// Rotation is the new key's id when the revocation ends a rotation.
	Rotation string
	// Recent: the key was used in the last 24 hours.
	Recent bool
}

// handleKeyRevokeForm asks to confirm a revocation, showing when and from
// where the key was last used.
func (s *Server) handleKeyRevokeForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, keyManagers...); err != nil {
		return err
	}
	k, err := s.findKey(r.Context(), v, r.PathValue("id"))
	if err != nil {
		return err
	}
	view := revokeView{Key: k, Rotation: r.URL.Query().Get("rotacion")}
	view.Recent = k.LastUsedAt != nil && s.now().Sub(*k.LastUsedAt) < 24*time.Hour
	s.render(w, r, http.StatusOK, revokePage(s.layout(r, v, v.T("Revoke the key")), view))
	return nil
}

// handleKeyRevoke revokes the path's key, once confirmed (confirm=yes;
// without it, the confirmation page). Revoking a revoked key changes
// nothing.
func (s *Server) handleKeyRevoke(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, keyManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	k, err := s.findKey(ctx, v, r.PathValue("id"))
	if err != nil {
		return err
	}
	rotation := r.PostFormValue("rotation")
	if r.PostFormValue("confirm") != "yes" {
		target := keyPath(k.ID, "revocar")
		if rotation != "" {
			target += "?" + url.Values{"rotacion": {rotation}}.Encode()
		}
		s.redirect(w, r, target)
		return nil
	}
	if k.RevokedAt == nil {
		now := s.now()
		if err := s.Store.RevokeAPIKey(ctx, v.Tenant.ID, k.ID, now); err != nil {
			return err
		}
		after := *k
		after.RevokedAt = &now
		if err := s.audit(ctx, v, "api_key.revoked", k.ID, jsonOf(keySummary(k)), jsonOf(keySummary(&after))); err != nil {
			return err
		}
	}
	if rotation != "" {
		if _, err := s.findKey(ctx, v, rotation); err == nil {
			s.redirect(w, r, rotationPath(k.ID, rotation)+"&done=key-revoked")
			return nil
		}
	}
	s.redirect(w, r, keysPath+"?done=key-revoked")
	return nil
}

// findKey is the tenant's key id: another tenant's key is NOT_FOUND, as a
// key that does not exist.
func (s *Server) findKey(ctx context.Context, v *visit, id string) (*sello.APIKey, error) {
	k, err := s.Store.FindAPIKey(ctx, v.Tenant.ID, id)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return nil, pageError(sello.CodeNotFound, v.T("This company has no such API key."))
	}
	return k, err
}

// keySummary is what the audit log keeps of a key: never its hash.
func keySummary(k *sello.APIKey) map[string]any {
	return map[string]any{
		"id": k.ID, "name": k.Name, "environment": k.Environment, "scopes": k.Scopes,
		"last4": k.Last4, "expiresAt": k.ExpiresAt, "revokedAt": k.RevokedAt,
	}
}

// keyState is a key's state as the list names it: active, revoked or
// expired.
func keyState(k *sello.APIKey, now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return "revoked"
	case !k.Active(now):
		return "expired"
	}
	return "active"
}

// keyStateKeys are the catalogue keys of the keys' states.
var keyStateKeys = map[string]string{
	"active":  "a key's state: active",
	"revoked": "a key's state: revoked",
	"expired": "a key's state: expired",
}

// scopeKeys are the catalogue keys of what each scope allows (spec §5).
var scopeKeys = map[sello.Scope]string{
	sello.ScopeValidate:   "Check documents without issuing them (pre-flight, no fiscal effect)",
	sello.ScopeCreate:     "Issue e-CF documents",
	sello.ScopeRead:       "Read documents and their files",
	sello.ScopeStatusRead: "Ask for the status of documents in batches",
	sello.ScopeAdmin:      "Administrative operations: sequences, voids, certification, commercial approvals",
}

// rotationStateKeys are the catalogue keys of what each state of a
// rotation asks the person to do.
var rotationStateKeys = map[sello.APIKeyRotationState]string{
	sello.RotationNewUnused: "The new key has not been used yet. Put it in your systems in place of the old one; this page shows when it is first used.",
	sello.RotationOldInUse:  "The new key is in use, but some system still sends the old one: update it before revoking the old key.",
	sello.RotationReady:     "The new key is in use and the old one has gone quiet. If no system that runs rarely (a monthly job) still holds it, revoke the old key.",
	sello.RotationDone:      "The old key is revoked or expired: the rotation is done.",
}

func init() {
	flashKeys["key-revoked"] = "The key is revoked: the API refuses it from now on."
}

// keyTitle is a key's name, or a stand-in for a key without one.
func keyTitle(l *layoutData, k *sello.APIKey) string {
	if k.Name == "" {
		return l.T("Key without a name")
	}
	return k.Name
}

// last4 tells a key apart by the end of its plaintext.
func last4(k *sello.APIKey) string { return "…" + k.Last4 }

// scopeID is a scope as a piece of an element's id (ecf:create:
// ecf-create).
func scopeID(sc sello.Scope) string { return strings.ReplaceAll(string(sc), ":", "-") }

// timeOr is *t in the page's language, or none when t is nil.
func timeOr(l *layoutData, t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return formatTime(l, *t)
}

// orDash is s, or a dash for nothing.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// rotationPoll makes htmx refresh a rotation's state every 30 seconds
// until it is done.
func rotationPoll(view rotationView) templ.Attributes {
	if view.Rotation.State == sello.RotationDone {
		return templ.Attributes{}
	}
	return templ.Attributes{
		"hx-get":     rotationPath(view.Rotation.Old.ID, view.Rotation.New.ID),
		"hx-trigger": "every 30s",
		"hx-select":  "#rotation-state",
		"hx-swap":    "outerHTML",
	}
}
