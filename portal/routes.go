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

	// API keys (keys.go): every member reads them; owners, admins and
	// developers issue, rotate and revoke.
	mux.Handle("GET "+keysPath, s.authed(s.handleKeys))
	mux.Handle("POST "+keysPath, s.authed(s.handleKeyCreate))
	mux.Handle("POST "+keysPath+"/{id}/rotar", s.authed(s.handleKeyRotate))
	mux.Handle("GET "+keysPath+"/{id}/rotacion", s.authed(s.handleKeyRotation))
	mux.Handle("GET "+keysPath+"/{id}/revocar", s.authed(s.handleKeyRevokeForm))
	mux.Handle("POST "+keysPath+"/{id}/revocar", s.authed(s.handleKeyRevoke))

	// Users (users.go) and the audit log (audit.go): owners only.
	mux.Handle("GET "+usersPath, s.authed(s.handleUsers))
	mux.Handle("POST "+invitePath, s.authed(s.handleInvite))
	mux.Handle("POST "+requireTOTPPath, s.authed(s.handleRequireSecondFactor))
	mux.Handle("POST "+usersPath+"/{id}/"+userRolePage, s.authed(s.handleUserRole))
	mux.Handle("GET "+usersPath+"/{id}/"+userRemovePage, s.authed(s.handleUserRemoveForm))
	mux.Handle("POST "+usersPath+"/{id}/"+userRemovePage, s.authed(s.handleUserRemove))
	mux.Handle("GET "+auditPath, s.authed(s.handleAudit))
	mux.Handle("GET "+auditVerifyPath, s.authed(s.handleAuditVerify))

	// Webhooks (webhooks.go): the endpoints and their deliveries, per
	// environment (envRoute).
	envRoute(mux, "GET /portal/{env}/webhooks", s.authed(s.handleWebhooks))
	envRoute(mux, "POST /portal/{env}/webhooks", s.authed(s.handleWebhookCreate))
	envRoute(mux, "GET /portal/{env}/webhooks/nuevo", s.authed(s.handleWebhookNew))
	envRoute(mux, "GET /portal/{env}/webhooks/endpoints/{id}", s.authed(s.handleWebhookEndpoint))
	envRoute(mux, "POST /portal/{env}/webhooks/endpoints/{id}/pausar", s.authed(s.handleWebhookPause))
	envRoute(mux, "POST /portal/{env}/webhooks/endpoints/{id}/reanudar", s.authed(s.handleWebhookResume))
	envRoute(mux, "POST /portal/{env}/webhooks/endpoints/{id}/rotar-secreto", s.authed(s.handleWebhookRotate))
	envRoute(mux, "POST /portal/{env}/webhooks/endpoints/{id}/probar", s.authed(s.handleWebhookTest))
	envRoute(mux, "GET /portal/{env}/webhooks/endpoints/{id}/eliminar", s.authed(s.handleWebhookDeleteForm))
	envRoute(mux, "POST /portal/{env}/webhooks/endpoints/{id}/eliminar", s.authed(s.handleWebhookDelete))
	envRoute(mux, "GET /portal/{env}/webhooks/entregas", s.authed(s.handleDeliveries))
	envRoute(mux, "POST /portal/{env}/webhooks/entregas/reenviar-fallidas", s.authed(s.handleReplayFailed))
	envRoute(mux, "GET /portal/{env}/webhooks/entregas/{id}", s.authed(s.handleDelivery))
	envRoute(mux, "POST /portal/{env}/webhooks/entregas/{id}/reenviar", s.authed(s.handleDeliveryReplay))

	// Documents (documents.go, documents_csv.go): every member reads them,
	// per environment (envRoute).
	envRoute(mux, "GET /portal/{env}/documentos", s.authed(s.handleDocuments))
	envRoute(mux, "GET /portal/{env}/documentos/exportar", s.authed(s.handleDocumentsExport))
	envRoute(mux, "GET /portal/{env}/documentos/{encf}", s.authed(s.handleDocument))
	envRoute(mux, "GET /portal/{env}/documentos/{encf}/xml", s.authed(s.handleDocumentXML))
	envRoute(mux, "GET /portal/{env}/documentos/{encf}/pdf", s.authed(s.handleDocumentPDF))
	// The fiscal administration (fiscal.go): sequences, voids, signing
	// certificates and DGII's certification runs, per environment.
	envRoute(mux, "GET /portal/{env}/secuencias", s.authed(s.handleSequences))
	envRoute(mux, "POST /portal/{env}/secuencias", s.authed(s.handleSequenceCreate))
	envRoute(mux, "GET /portal/{env}/anulaciones", s.authed(s.handleVoids))
	envRoute(mux, "POST /portal/{env}/anulaciones", s.authed(s.handleVoidCreate))
	envRoute(mux, "GET /portal/{env}/anulaciones/nueva", s.authed(s.handleVoidNew))
	envRoute(mux, "GET /portal/{env}/anulaciones/{id}", s.authed(s.handleVoid))
	envRoute(mux, "GET /portal/{env}/anulaciones/{id}/estado", s.authed(s.handleVoidState))
	envRoute(mux, "GET /portal/{env}/anulaciones/{id}/xml", s.authed(s.handleVoidXML))
	envRoute(mux, "GET /portal/{env}/certificados", s.authed(s.handleCertificates))
	envRoute(mux, "POST /portal/{env}/certificados", s.authed(s.handleCertificateUpload))
	envRoute(mux, "POST /portal/{env}/certificados/generar", s.authed(s.handleCertificateGenerate))
	envRoute(mux, "GET /portal/{env}/certificacion", s.authed(s.handleCertification))
	envRoute(mux, "POST /portal/{env}/certificacion", s.authed(s.handleCertificationStart))
	envRoute(mux, "GET /portal/{env}/certificacion/{id}", s.authed(s.handleCertificationRun))
	envRoute(mux, "GET /portal/{env}/certificacion/{id}/filas", s.authed(s.handleCertificationRows))
	envRoute(mux, "GET /portal/{env}/certificacion/{id}/representaciones-impresas", s.authed(s.handleCertificationZIP))
	// Received documents (received.go): every member reads them and their
	// files; owners, admins and accountants approve and reject. The
	// receiver's URLs and trust roots (receptor.go), read by everyone.
	envRoute(mux, "GET /portal/{env}/recibidos", s.authed(s.handleReceived))
	envRoute(mux, "GET /portal/{env}/recibidos/disputas", s.authed(s.handleDisputes))
	envRoute(mux, "GET /portal/{env}/recibidos/{id}", s.authed(s.handleReceivedDoc))
	envRoute(mux, "GET /portal/{env}/recibidos/{id}/pdf", s.authed(s.handleReceivedPDF))
	envRoute(mux, "GET /portal/{env}/recibidos/{id}/xml", s.authed(s.handleReceivedXML))
	envRoute(mux, "POST /portal/{env}/recibidos/{id}/aprobar", s.authed(s.handleReceivedDecision(sello.EstadoAprobado)))
	envRoute(mux, "POST /portal/{env}/recibidos/{id}/rechazar", s.authed(s.handleReceivedDecision(sello.EstadoRechazado)))
	envRoute(mux, "GET /portal/{env}/receptor", s.authed(s.handleReceptor))

	// Anything else under /portal/ is the portal's 404 page.
	mux.Handle("/portal/", s.public(s.handleNotFound))
	mux.Handle(sello.LinkPath, s.public(s.handleNotFound))
}

// handleNotFound is the page of a path the portal does not have.
func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request, v *visit) error {
	return pageError(sello.CodeNotFound, v.T("There is no such page."))
}

// envRoute registers an environment's page, pattern "METHOD
// /portal/{env}/…", once per environment with its name in place of {env}
// (a {env} wildcard before another segment would clash with
// /portal/static/{name}), and sets the request's "env" path value, as
// the wildcard would, for the handler to read.
func envRoute(mux *http.ServeMux, pattern string, h http.Handler) {
	for _, env := range sello.Environments {
		mux.Handle(strings.Replace(pattern, "{env}", string(env), 1), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.SetPathValue("env", string(env))
			h.ServeHTTP(w, r)
		}))
	}
}
