package api

import (
	"net/http"

	"github.com/sello-do/sello"
)

// handleHealthz answers while the process serves HTTP.
func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// handleReadyz answers 200 when the service can take traffic (its database
// answers), else 503 UNAVAILABLE.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) error {
	if s.Ready != nil {
		if err := s.Ready(r.Context()); err != nil {
			return &sello.Error{Code: sello.CodeUnavailable, Message: "The service is not ready: its database does not answer.", Err: err}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	return nil
}

// handleOpenAPI serves the OpenAPI 3.1 document.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(OpenAPIDocument())
	return nil
}
