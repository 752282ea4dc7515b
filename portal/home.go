package portal

import (
	"net/http"

	"github.com/sello-do/sello"
)

// handleHome is the company's home page in one environment (the path's
// {env}; TesteCF at /): who you are there, and DGII's state with the
// company's documents waiting for it.
func (s *Server) handleHome(w http.ResponseWriter, r *http.Request, v *visit) error {
	if env := r.PathValue("env"); env != "" {
		if _, err := sello.ParseEnvironment(env); err != nil {
			return pageError(sello.CodeNotFound, v.T("There is no such page."))
		}
	}
	l := s.layout(r, v, v.Tenant.Name)
	s.render(w, r, http.StatusOK, homePage(l))
	return nil
}

// handleDGIIStates is the header's list of environments with DGII's state,
// for htmx to refresh it (?env= marks the page's environment).
func (s *Server) handleDGIIStates(w http.ResponseWriter, r *http.Request, v *visit) error {
	l := s.layout(r, v, "")
	if env, err := sello.ParseEnvironment(r.URL.Query().Get("env")); err == nil {
		l.Env = env
	}
	s.render(w, r, http.StatusOK, dgiiStates(l))
	return nil
}

// current is the DGII state of the page's environment.
func (l *layoutData) current() envState {
	for _, e := range l.DGII {
		if e.Env == l.Env {
			return e
		}
	}
	return envState{Env: l.Env, State: "unknown"}
}
