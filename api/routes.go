package api

import (
	"net/http"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/metrics"
)

// routes registers every route of the API: this is the one place to read
// what the service answers.
func (s *Server) routes(mux *http.ServeMux) {
	// Public.
	mux.Handle("GET /healthz", s.handle(s.handleHealthz))
	mux.Handle("GET /readyz", s.handle(s.handleReadyz))
	mux.Handle("GET /openapi.json", s.handle(s.handleOpenAPI))

	// Documents (spec §4; DESIGN §3). A create needs ecf:create, or
	// ecf:validate with ?validate=true.
	mux.Handle("POST /{env}/documentos-ecf", s.authenticated(createScope, s.handleCreateDocument))
	mux.Handle("POST /{env}/documentos-ecf/status/batch", s.authenticated(fixedScope(sello.ScopeStatusRead), s.handleStatusBatch))
	mux.Handle("GET /{env}/documentos-ecf/{encf}", s.authenticated(fixedScope(sello.ScopeRead), s.handleGetDocument))
	mux.Handle("GET /{env}/documentos-ecf", s.authenticated(fixedScope(sello.ScopeRead), s.handleListDocuments))
	mux.Handle("GET /{env}/documentos-ecf/{encf}/xml", s.authenticated(fixedScope(sello.ScopeRead), s.handleGetDocumentXML))
	mux.Handle("GET /{env}/documentos-ecf/{encf}/pdf", s.authenticated(fixedScope(sello.ScopeRead), s.handleGetDocumentPDF))

	// Sequences (DESIGN §4): the tenant's DGII-authorized e-NCF ranges,
	// registered as the CLI's sequences add does (sello.RegisterSequence).
	mux.Handle("POST /{env}/secuencias", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleCreateSequence))
	mux.Handle("GET /{env}/secuencias", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleListSequences))

	// Voids (DESIGN §4, FACTS §1.9): unused e-NCF ranges voided with a
	// signed ANECF, reserved at once (sello.CreateVoid, as the CLI's voids
	// add) and sent to DGII by a job.
	mux.Handle("POST /{env}/anulaciones", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleCreateVoid))
	mux.Handle("GET /{env}/anulaciones", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleListVoids))
	mux.Handle("GET /{env}/anulaciones/{id}", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleGetVoid))
	mux.Handle("GET /{env}/anulaciones/{id}/xml", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleGetVoidXML))
	// DGII's reachability in the environment (contingency, FACTS §5.3),
	// with the tenant's documents waiting to reach DGII.
	mux.Handle("GET /{env}/estado-dgii", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleGetDGIIStatus))

	// Commercial approvals of inbound documents (DESIGN §4;
	// docs/receptor.md): the ACECF is signed and sent by a job; the
	// tenant's approvals are read back with each leg's outcome.
	mux.Handle("POST /{env}/aprobaciones-comerciales", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleCreateApproval))
	mux.Handle("GET /{env}/aprobaciones-comerciales", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleListApprovals))
	mux.Handle("GET /{env}/aprobaciones-comerciales/{id}", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleGetApproval))

	// Certification in CerteCF (DESIGN §4; docs/certification.md): DGII's
	// test set, sent row by row by a job (sello.StartCertification).
	mux.Handle("POST /{env}/certificacion/pruebas", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleCreateCertification))
	mux.Handle("GET /{env}/certificacion/pruebas", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleListCertifications))
	mux.Handle("GET /{env}/certificacion/pruebas/{id}", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleGetCertification))
	mux.Handle("GET /{env}/certificacion/pruebas/{id}/representaciones-impresas", s.authenticated(fixedScope(sello.ScopeAdmin), s.handleGetCertificationPDFs))

	// The tenants' receiver services (DESIGN §6, FACTS §2; docs/receptor.md):
	// public, called by DGII and suppliers, case-insensitive below the RNC
	// (withReceiverCase). Reception requires a token unless the tenant
	// turned that off; so does commercial approval. Every call is limited
	// per client address and per receiver, and bounded in time (receiver).
	mux.Handle("GET /{env}/receptor/{rnc}/fe/autenticacion/api/semilla", s.receiver(metrics.ServiceSemilla, s.handleSemilla))
	mux.Handle("POST /{env}/receptor/{rnc}/fe/autenticacion/api/validacioncertificado", s.receiver(metrics.ServiceValidacionCertificado, s.handleValidacionCertificado))
	mux.Handle("POST /{env}/receptor/{rnc}/fe/recepcion/api/ecf", s.receiver(metrics.ServiceRecepcion, s.handleRecepcion))
	mux.Handle("POST /{env}/receptor/{rnc}/fe/aprobacioncomercial/api/ecf", s.receiver(metrics.ServiceAprobacionComercial, s.handleAprobacionComercial))

	// Inbound documents (DESIGN §4, §6): what suppliers posted to the
	// tenant's receiver.
	mux.Handle("GET /{env}/documentos-recibidos", s.authenticated(fixedScope(sello.ScopeRead), s.handleListInbound))
	mux.Handle("GET /{env}/documentos-recibidos/{id}", s.authenticated(fixedScope(sello.ScopeRead), s.handleGetInbound))
	mux.Handle("GET /{env}/documentos-recibidos/{id}/xml", s.authenticated(fixedScope(sello.ScopeRead), s.handleGetInboundXML))
	mux.Handle("GET /{env}/documentos-recibidos/{id}/pdf", s.authenticated(fixedScope(sello.ScopeRead), s.handleGetInboundPDF))

	// Events (DESIGN §3, §5): the outbox, oldest first, kept 30 days.
	mux.Handle("GET /{env}/eventos", s.authenticated(fixedScope(sello.ScopeRead), s.handleListEvents))
}
