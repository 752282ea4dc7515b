package dgiisim

import (
	"net/http"
	"strconv"

	"github.com/sello-do/sello"
)

// Approval answers.
const (
	approvalOK      = 1
	approvalRefused = 2
)

var approvalEstados = map[int]string{approvalOK: "Aprobación comercial aprobada", approvalRefused: "Aprobación comercial rechazada"}

// aprobacionComercial receives a buyer's ACECF: 400 for an invalid file or
// signature, else 200 with codigo 1 (taken) or 2 (refused: invoice not
// found, not applicable, not valid). Approvals of e-CFs of the taxpayers
// of the simulator's directory are taken without a matching send: the
// simulator plays those issuers, whose sends it never saw.
func (s *Simulator) aprobacionComercial(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	answer := func(status, codigo int, msgs ...string) {
		respond(w, r, status, obj{{"mensaje", append([]string{}, msgs...)}, {"estado", approvalEstados[codigo]}, {"codigo", strconv.Itoa(codigo)}}, "RespuestaAprobacionComercial", "")
	}
	up, fail := readUpload(w, r)
	if fail != "" {
		answer(http.StatusBadRequest, approvalRefused, fail)
		return
	}
	m := fileNameRE.FindStringSubmatch(up.fileName)
	if m == nil {
		answer(http.StatusBadRequest, approvalRefused, "Tipo de archivo no válido, favor proveer un XML con nombre RNCComprador+e-NCF.")
		return
	}
	doc, err := parseXML(up.content)
	if err != nil || doc.name != "ACECF" {
		answer(http.StatusBadRequest, approvalRefused, "La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente")
		return
	}
	d := doc.child("DetalleAprobacionComercial")
	rncEmisor, encf, buyer, estado := d.get("RNCEmisor"), d.get("eNCF"), d.get("RNCComprador"), d.get("Estado")
	e, encfErr := sello.ParseENCF(encf)
	var problem string
	switch {
	case !rncRE.MatchString(rncEmisor) || !rncRE.MatchString(buyer):
		problem = "RNCEmisor o RNCComprador no es válido"
	case encfErr != nil:
		problem = "el eNCF no es válido"
	case estado != "1" && estado != "2":
		problem = "el Estado debe ser 1 o 2"
	case estado == "2" && d.get("DetalleMotivoRechazo") == "":
		problem = "DetalleMotivoRechazo es requerido cuando el Estado es 2"
	case !amountRE.MatchString(d.get("MontoTotal")):
		problem = "el MontoTotal no es válido"
	case buyer != m[1] || encf != m[2]:
		problem = "el nombre del archivo no corresponde a RNCComprador y eNCF"
	}
	if problem != "" {
		answer(http.StatusBadRequest, approvalRefused, "La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente. "+problem)
		return
	}
	if s.cfg.Verify != nil {
		if _, err := s.cfg.Verify(up.content); err != nil {
			answer(http.StatusBadRequest, approvalRefused, "La firma del XML no es válida")
			return
		}
	}
	switch e.Type {
	case sello.TypeConsumo, sello.TypeCompras, sello.TypeGastosMenores, sello.TypeExportaciones, sello.TypePagosExterior:
		answer(http.StatusOK, approvalRefused, "Aprobación Comercial no es requerida para este tipo de e-CF")
		return
	}
	now := s.now()
	s.mu.Lock()
	sends := s.byDoc[docKey{env, rncEmisor, encf}]
	valid := false
	for _, sub := range sends {
		c := sub.codigo(now)
		if (c == codigoAceptado || c == codigoCondicional) && (sub.rncComprador == "" || sub.rncComprador == buyer) {
			valid = true
		}
	}
	s.mu.Unlock()
	switch {
	case valid || (len(sends) == 0 && findDirectoryEntry(rncEmisor) != nil):
		answer(http.StatusOK, approvalOK)
	case len(sends) == 0:
		answer(http.StatusOK, approvalRefused, "Factura no encontrada para esta Aprobación comercial.")
	default:
		answer(http.StatusOK, approvalRefused, "No se encuentra un e-CF válido para esta aprobación comercial")
	}
}
