package portal

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
)

// layoutData is what the one layout shows around every page: the company
// (with the switcher when the user has several), the environments with
// DGII's state in each, the language switch and the user's menu.
type layoutData struct {
	V     *visit
	Title string
	// Env is the environment the page is about (the path's {env}, else
	// TesteCF).
	Env sello.Environment
	// DGII is DGII's state per environment; empty for a visitor who is not
	// logged in.
	DGII []envState
	// Tenants are the user's companies, for the switcher (when more than
	// one).
	Tenants []tenantOption
	// Menu is the pages the user's role may open.
	Menu []menuItem
	// Path is the page's path, where the language switch comes back to.
	Path string
	// Flash is a message about the last action.
	Flash string
	// Idle is how long a session may go unused.
	Idle time.Duration
}

// envState is DGII's state in one environment, as the header shows it.
type envState struct {
	Env   sello.Environment
	State string // available, contingency, draining or unknown
	Label string
	// Waiting is how many of the tenant's documents wait for DGII.
	Waiting int
}

// tenantOption is one company of the switcher.
type tenantOption struct {
	ID, Label string
	Current   bool
}

// menuItem is one entry of the page menu.
type menuItem struct {
	Label, Href string
	Current     bool
}

// menuEntry is a page of the menu: its path (with {env} for the
// environment's pages) and the roles that may open it.
type menuEntry struct {
	Key   string // catalogue key of its label
	Path  string
	Roles []sello.Role
}

// menu lists the portal's pages in the menu's order. A new page adds its
// entry here.
var menu = []menuEntry{
	{Key: "Home", Path: "/", Roles: sello.Roles},
	{Key: "Documents", Path: "/portal/{env}/documentos", Roles: sello.Roles},
	{Key: "API keys", Path: keysPath, Roles: sello.Roles},
	{Key: "Webhooks", Path: "/portal/{env}/webhooks", Roles: sello.Roles},
	{Key: "Sequences", Path: "/portal/{env}/secuencias", Roles: sello.Roles},
	{Key: "Voids", Path: "/portal/{env}/anulaciones", Roles: sello.Roles},
	{Key: "Certificates", Path: "/portal/{env}/certificados", Roles: sello.Roles},
	{Key: "Certification", Path: "/portal/CerteCF/certificacion", Roles: sello.Roles},
	{Key: "Received", Path: "/portal/{env}/recibidos", Roles: sello.Roles},
	{Key: "Receiver", Path: "/portal/{env}/receptor", Roles: sello.Roles},
	{Key: "Users", Path: usersPath, Roles: []sello.Role{sello.RoleOwner}},
	{Key: "Audit log", Path: auditPath, Roles: []sello.Role{sello.RoleOwner}},
	{Key: "Account", Path: accountPath, Roles: sello.Roles},
}

// layout builds the layout of a page titled title. It never fails: what it
// cannot read (DGII's state) it shows as unknown and logs.
func (s *Server) layout(r *http.Request, v *visit, title string) *layoutData {
	l := &layoutData{V: v, Title: title, Env: pageEnv(r), Path: r.URL.Path, Idle: s.idleTimeout()}
	if r.URL.Query().Get("done") != "" {
		l.Flash = flashMessage(v, r.URL.Query().Get("done"))
	}
	if !l.LoggedIn() {
		return l
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	l.DGII = s.dgiiStates(ctx, v.Tenant.ID, v.Lang)
	if len(v.Memberships) > 1 {
		for _, m := range v.Memberships {
			label := m.TenantID
			if t, err := s.Store.FindTenantByID(ctx, m.TenantID); err == nil {
				label = t.Name + " (" + t.RNC + ")"
			}
			l.Tenants = append(l.Tenants, tenantOption{ID: m.TenantID, Label: label, Current: m.TenantID == v.Tenant.ID})
		}
	}
	for _, e := range menu {
		if !contains(e.Roles, v.Role) {
			continue
		}
		href := strings.ReplaceAll(e.Path, "{env}", string(l.Env))
		current := href == r.URL.Path || href != "/" && strings.HasPrefix(r.URL.Path, href+"/")
		l.Menu = append(l.Menu, menuItem{Label: v.T(e.Key), Href: href, Current: current})
	}
	return l
}

// dgiiStates reads DGII's state in every environment, with the tenant's
// documents waiting in each: the same reads as GET /{env}/estado-dgii.
func (s *Server) dgiiStates(ctx context.Context, tenantID string, lang i18n.Lang) []envState {
	var out []envState
	for _, env := range sello.Environments {
		st := envState{Env: env, State: "unknown"}
		reach, err := s.Store.FindReachability(ctx, env)
		if err == nil {
			st.State = string(reach.State)
			st.Waiting, _, err = s.Store.CountWaitingDocuments(ctx, tenantID, env)
		}
		if err != nil {
			s.Logger.LogAttrs(ctx, slog.LevelWarn, "portal: DGII state", slog.String("env", string(env)), slog.String("err", err.Error()))
		}
		st.Label = i18n.T(lang, dgiiStateKeys[st.State])
		out = append(out, st)
	}
	return out
}

// dgiiStateKeys are the catalogue keys of DGII's states.
var dgiiStateKeys = map[string]string{
	string(sello.DGIIAvailable):   "available",
	string(sello.DGIIContingency): "contingency",
	string(sello.DGIIDraining):    "sending what waited",
	"unknown":                     "state unknown",
}

// pageEnv is the environment of the page: the path's {env}, else TesteCF.
func pageEnv(r *http.Request) sello.Environment {
	if env, err := sello.ParseEnvironment(r.PathValue("env")); err == nil {
		return env
	}
	return sello.EnvTest
}

// T is the catalogue's string for key in the page's language.
func (l *layoutData) T(key string, args ...any) string { return l.V.T(key, args...) }

// CSRF is the session's CSRF token, for the forms' hidden field.
func (l *layoutData) CSRF() string {
	if l.V.Session == nil {
		return ""
	}
	return l.V.Session.CSRFToken
}

// HXHeaders is the body's hx-headers: htmx sends the CSRF token with every
// request it makes.
func (l *layoutData) HXHeaders() string {
	if l.V.Session == nil {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": l.V.Session.CSRFToken})
	return string(b)
}

// LoggedIn reports whether the page is shown to a logged-in user past the
// second factor (the header then shows the company and the menu).
func (l *layoutData) LoggedIn() bool { return l.V.Session != nil && l.V.Tenant != nil && !l.V.Pending }

// OtherLang is the language the switch offers.
func (l *layoutData) OtherLang() string {
	if l.V.Lang == i18n.EN {
		return string(i18n.ES)
	}
	return string(i18n.EN)
}

// htmxConfig is htmx's configuration (its meta tag): no inline indicator
// style (the CSP refuses it), no eval, no scripts from swapped content,
// requests only to the portal itself.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true,"historyCacheSize":0}`

func contains[T comparable](s []T, x T) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// formatTime is t in the page's language, in the Dominican Republic's time.
func formatTime(l *layoutData, t time.Time) string { return i18n.FormatTime(l.V.Lang, t) }

// idleMinutes is how long a session may go unused.
func idleMinutes(l *layoutData) int { return int(l.Idle / time.Minute) }
