package dgiisim

import (
	"net/http"
	"strings"

	"github.com/sello-do/sello"
)

// Directory RNCs; see the package doc.
const (
	// RNCDGIITest is DGII's test counterpart in TesteCF: its directory
	// entry points at the simulator's own emisorreceptor base, and
	// commercial approvals of its e-CFs are taken without a matching send.
	RNCDGIITest = "131880681"
	// RNCDirectoryObject's entry is answered as a single object, not a
	// list, as DGII sometimes does.
	RNCDirectoryObject = "999000010"
	// RNCDirectoryNoAuth's entry declares no authentication host.
	RNCDirectoryNoAuth = "999000011"
)

// directorio answers the directory: the whole list (listado) or one
// taxpayer (obtenerdirectorioporrnc).
func (s *Simulator) directorio(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	base := s.cfg.BaseURL
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	er := base + "/" + env.Slug() + "/emisorreceptor"
	entry := func(e directoryEntry) obj {
		auth := ""
		if e.auth {
			auth = er
		}
		return obj{{"nombre", e.nombre}, {"rnc", e.rnc}, {"urlRecepcion", er}, {"urlAceptacion", er}, {"urlOpcional", auth}}
	}
	if !strings.HasSuffix(strings.ToLower(r.URL.Path), "obtenerdirectorioporrnc") {
		entries := make([]obj, len(directory))
		for i, e := range directory {
			entries[i] = entry(e)
		}
		respond(w, r, http.StatusOK, entries, "ArrayOfDirectorio", "Directorio")
		return
	}
	rnc := query(r, "RNC")
	if rnc == "" {
		respond(w, r, http.StatusBadRequest, obj{{"mensajes", []string{"El campo RNC es requerido."}}}, "Error", "")
		return
	}
	found := []obj{}
	e := findDirectoryEntry(rnc)
	if e == nil && s.cfg.Receivers != nil {
		if name, base, ok := s.cfg.Receivers(env, rnc); ok {
			found = append(found, obj{{"nombre", name}, {"rnc", rnc}, {"urlRecepcion", base}, {"urlAceptacion", base}, {"urlOpcional", base}})
		}
	}
	if e != nil && e.object {
		respond(w, r, http.StatusOK, entry(*e), "Directorio", "")
		return
	} else if e != nil {
		found = append(found, entry(*e))
	}
	respond(w, r, http.StatusOK, found, "ArrayOfDirectorio", "Directorio")
}
