package portal

import (
	"net/http"
	"strings"

	"github.com/sello-do/sello"
)

// The portal's paths. Pages about one environment live under
// /portal/{env}/.
const (
	loginPath        = "/portal/entrar"
	secondFactorPath = "/portal/segundo-factor"
	logoutPath       = "/portal/salir"
	logoutAllPath    = "/portal/salir-de-todo"
	resetPath        = "/portal/recuperar"
	accountPath      = "/portal/cuenta"
	passwordPath     = "/portal/cuenta/clave"
	enrolPath        = "/portal/cuenta/segundo-factor"
	enrolConfirmPath = "/portal/cuenta/segundo-factor/confirmar"
	enrolRemovePath  = "/portal/cuenta/segundo-factor/quitar"
	languagePath     = "/portal/idioma"
	tenantSwitchPath = "/portal/empresa"
	dgiiStatesPath   = "/portal/estado-dgii"
)

// envHomePath is the home page of one environment.
func envHomePath(env sello.Environment) string { return "/portal/" + string(env) }

// Owns reports whether a request is the portal's, for the server that
// serves it beside the API: GET (and HEAD) / (the home page, or the
// login), every path under /portal/, and the one-time links
// (sello.LinkPath). Every other request is the API's, which answers its
// own 404s and 405s as before.
func Owns(r *http.Request) bool {
	p := r.URL.Path
	if p == "/" {
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	}
	return p == "/portal" || strings.HasPrefix(p, "/portal/") || strings.HasPrefix(p, sello.LinkPath)
}

// routes registers every route of the portal: this is the one place to
// read what it answers.
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+staticPrefix+"{name}", s.handleStatic)

	// Home: the company's page, per environment.
	mux.Handle("GET /{$}", s.authed(s.handleHome))
	mux.Handle("GET /portal/{$}", http.RedirectHandler("/", http.StatusSeeOther))
	mux.Handle("GET /portal/{env}", s.authed(s.handleHome))
	mux.Handle("GET "+dgiiStatesPath, s.authed(s.handleDGIIStates))

	// Logging in and out (login.go).
	mux.Handle("GET "+loginPath, s.public(s.handleLoginForm))
	mux.Handle("POST "+loginPath, s.public(s.handleLogin))
	mux.Handle("GET "+secondFactorPath, s.pending(s.handleSecondFactorForm))
	mux.Handle("POST "+secondFactorPath, s.pending(s.handleSecondFactor))
	mux.Handle("POST "+logoutPath, s.pending(s.handleLogout))
	mux.Handle("POST "+logoutAllPath, s.authed(s.handleLogoutAll))
	mux.Handle("POST "+languagePath, http.HandlerFunc(s.handleLanguage))
	mux.Handle("POST "+tenantSwitchPath, s.authed(s.handleTenantSwitch))

	// One-time links: invitations and password resets (link.go).
	mux.Handle("GET "+sello.LinkPath+"{token}", s.public(s.handleLinkForm))
	mux.Handle("POST "+sello.LinkPath+"{token}", s.public(s.handleLink))
	mux.Handle("GET "+resetPath, s.public(s.handleResetRequestForm))
	mux.Handle("POST "+resetPath, s.public(s.handleResetRequest))

	// The user's account (account.go): language, password, second factor.
	mux.Handle("GET "+accountPath, s.authed(s.handleAccount))
	mux.Handle("POST "+passwordPath, s.authed(s.handleChangePassword))
	mux.Handle("GET "+enrolPath, s.pending(s.handleEnrolForm))
	mux.Handle("POST "+enrolPath, s.pending(s.handleEnrolStart))
	mux.Handle("POST "+enrolConfirmPath, s.pending(s.handleEnrolConfirm))
	mux.Handle("POST "+enrolRemovePath, s.authed(s.handleEnrolRemove))

	// Webhooks (webhooks.go): the endpoints and their deliveries, per
	// environment.
	mux.Handle("GET /portal/{env}/webhooks", s.authed(s.handleWebhooks))
	mux.Handle("POST /portal/{env}/webhooks", s.authed(s.handleWebhookCreate))
	mux.Handle("GET /portal/{env}/webhooks/nuevo", s.authed(s.handleWebhookNew))
	mux.Handle("GET /portal/{env}/webhooks/endpoints/{id}", s.authed(s.handleWebhookEndpoint))
	mux.Handle("POST /portal/{env}/webhooks/endpoints/{id}/pausar", s.authed(s.handleWebhookPause))
	mux.Handle("POST /portal/{env}/webhooks/endpoints/{id}/reanudar", s.authed(s.handleWebhookResume))
	mux.Handle("POST /portal/{env}/webhooks/endpoints/{id}/rotar-secreto", s.authed(s.handleWebhookRotate))
	mux.Handle("POST /portal/{env}/webhooks/endpoints/{id}/probar", s.authed(s.handleWebhookTest))
	mux.Handle("GET /portal/{env}/webhooks/endpoints/{id}/eliminar", s.authed(s.handleWebhookDeleteForm))
	mux.Handle("POST /portal/{env}/webhooks/endpoints/{id}/eliminar", s.authed(s.handleWebhookDelete))
	mux.Handle("GET /portal/{env}/webhooks/entregas", s.authed(s.handleDeliveries))
	mux.Handle("POST /portal/{env}/webhooks/entregas/reenviar-fallidas", s.authed(s.handleReplayFailed))
	mux.Handle("GET /portal/{env}/webhooks/entregas/{id}", s.authed(s.handleDelivery))
	mux.Handle("POST /portal/{env}/webhooks/entregas/{id}/reenviar", s.authed(s.handleDeliveryReplay))

	// Anything else under /portal/ is the portal's 404 page.
	mux.Handle("/portal/", s.public(s.handleNotFound))
	mux.Handle(sello.LinkPath, s.public(s.handleNotFound))
}

// handleNotFound is the page of a path the portal does not have.
func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request, v *visit) error {
	return pageError(sello.CodeNotFound, v.T("There is no such page."))
}
