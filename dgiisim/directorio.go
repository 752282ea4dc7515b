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
	entries := []obj{
		{{"nombre", "DGII EMISOR RECEPTOR DE PRUEBAS"}, {"rnc", RNCDGIITest}, {"urlRecepcion", er}, {"urlAceptacion", er}, {"urlOpcional", er}},
		{{"nombre", "COMPRADOR SIMULADO OBJETO SRL"}, {"rnc", RNCDirectoryObject}, {"urlRecepcion", er}, {"urlAceptacion", er}, {"urlOpcional", er}},
		{{"nombre", "COMPRADOR SIMULADO SIN AUTENTICACION SRL"}, {"rnc", RNCDirectoryNoAuth}, {"urlRecepcion", er}, {"urlAceptacion", er}, {"urlOpcional", ""}},
	}
	if !strings.HasSuffix(strings.ToLower(r.URL.Path), "obtenerdirectorioporrnc") {
		respond(w, r, http.StatusOK, entries, "ArrayOfDirectorio", "Directorio")
		return
	}
	rnc := query(r, "RNC")
	if rnc == "" {
		respond(w, r, http.StatusBadRequest, obj{{"mensajes", []string{"El campo RNC es requerido."}}}, "Error", "")
		return
	}
	found := []obj{}
	for _, e := range entries {
		if e[1].v == rnc {
			found = append(found, e)
		}
	}
	if rnc == RNCDirectoryObject {
		respond(w, r, http.StatusOK, found[0], "Directorio", "")
		return
	}
	respond(w, r, http.StatusOK, found, "ArrayOfDirectorio", "Directorio")
}
