package dgiisim

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/sello-do/sello"
)

// voidKey identifies an issuer's e-CF type in an environment.
type voidKey struct {
	env  sello.Environment
	rnc  string
	tipo string
}

const maxVoidRanges = 10_000

// voided reports whether k's e-NCF lies in a voided range. s.mu must be
// held.
func (s *Simulator) voided(k docKey) bool {
	e, err := sello.ParseENCF(k.encf)
	if err != nil {
		return false
	}
	for _, rg := range s.voids[voidKey{k.env, k.rnc, string(e.Type)}] {
		if rg[0] <= e.Number && e.Number <= rg[1] {
			return true
		}
	}
	return false
}

// Void answer codes (DGII does not document its values; these are the
// simulator's).
const (
	voidAll     = "1" // every range voided
	voidPartial = "2" // some ranges voided, the others listed
	voidNone    = "3" // nothing voided
)

var numRE = regexp.MustCompile(`^\d{1,10}$`)

// anulacion voids unused ranges of e-NCFs (ANECF).
func (s *Simulator) anulacion(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	answer := func(status int, rnc, codigo, nombre string, msgs []string) {
		respond(w, r, status, obj{{"rnc", rnc}, {"codigo", codigo}, {"nombre", nombre}, {"mensajes", append([]string{}, msgs...)}}, "RespuestaAnulacionRango", "")
	}
	up, fail := readUpload(w, r)
	if fail != "" {
		answer(http.StatusBadRequest, "", voidNone, "Archivo no válido", []string{fail})
		return
	}
	doc, err := parseXML(up.content)
	if err != nil || doc.name != "ANECF" {
		answer(http.StatusBadRequest, "", voidNone, "Archivo no válido", []string{"Tipo de archivo no valido, favor proveer un XML"})
		return
	}
	rnc := doc.get("Encabezado", "RncEmisor")
	refuse := func(msg string) { answer(http.StatusBadRequest, rnc, voidNone, "Anulación rechazada", []string{msg}) }
	if !rncRE.MatchString(rnc) {
		refuse("El RncEmisor no es válido.")
		return
	}
	if s.cfg.Verify != nil {
		if _, err := s.cfg.Verify(up.content); err != nil {
			refuse("La firma del documento no es válida.")
			return
		}
	}
	type line struct {
		tipo   string
		ranges [][2]int64
	}
	var lines []line
	var total int64
	for i, a := range doc.child("DetalleAnulacion").all("Anulacion") {
		if a.get("NoLinea") != strconv.Itoa(i+1) {
			refuse("El campo NoLinea no es válido, no cumple orden secuencial.")
			return
		}
		l := line{tipo: a.get("TipoeCF")}
		if _, err := sello.ParseDocumentType(l.tipo); err != nil || len(l.tipo) != 2 {
			refuse("El tipo de comprobante no es válido.")
			return
		}
		var count int64
		for _, sq := range a.child("TablaRangoSecuenciasAnuladaseNCF").all("Secuencias") {
			from, err1 := sello.ParseENCF(sq.get("SecuenciaeNCFDesde"))
			to, err2 := sello.ParseENCF(sq.get("SecuenciaeNCFHasta"))
			if err1 != nil || err2 != nil || string(from.Type) != l.tipo || string(to.Type) != l.tipo {
				refuse(fmt.Sprintf("Las secuencias de la línea %d no son e-NCF válidos del tipo %s.", i+1, l.tipo))
				return
			}
			if from.Number > to.Number {
				refuse("El valor del campo SecuenciaeNCFDesde es mayor al del campo SecuenciaeNCFHasta.")
				return
			}
			l.ranges = append(l.ranges, [2]int64{from.Number, to.Number})
			count += to.Number - from.Number + 1
		}
		if len(l.ranges) == 0 {
			refuse(fmt.Sprintf("La línea %d no tiene secuencias.", i+1))
			return
		}
		if !numRE.MatchString(a.get("CantidadeNCFAnulados")) || a.get("CantidadeNCFAnulados") != strconv.FormatInt(count, 10) {
			refuse(fmt.Sprintf("El campo CantidadeNCFAnulados de la línea %d no corresponde a las secuencias.", i+1))
			return
		}
		total += count
		lines = append(lines, l)
	}
	if len(lines) == 0 || len(lines) > 10 {
		refuse("El detalle de anulación debe tener de 1 a 10 líneas.")
		return
	}
	if doc.get("Encabezado", "CantidadeNCFAnulados") != strconv.FormatInt(total, 10) {
		refuse("El campo CantidadeNCFAnulados del encabezado no corresponde al detalle.")
		return
	}

	s.mu.Lock()
	var done, refused []string
	for _, l := range lines {
		for _, rg := range l.ranges {
			// A range is refused when any e-NCF in it was spent by a send.
			var used []string
			for k, subs := range s.byDoc {
				if k.env != env || k.rnc != rnc || !strings.HasPrefix(k.encf, "E"+l.tipo) {
					continue
				}
				e, err := sello.ParseENCF(k.encf)
				if err != nil || e.Number < rg[0] || e.Number > rg[1] {
					continue
				}
				for _, sub := range subs {
					if sub.verdict.spent {
						used = append(used, k.encf)
						break
					}
				}
			}
			name := fmt.Sprintf("E%s%010d-E%s%010d", l.tipo, rg[0], l.tipo, rg[1])
			if len(used) > 0 {
				refused = append(refused, fmt.Sprintf("Las secuencias que está intentando anular han sido utilizadas: %s (%s).", name, strings.Join(used, ", ")))
				continue
			}
			vk := voidKey{env, rnc, l.tipo}
			if len(s.voids[vk]) < maxVoidRanges {
				s.voids[vk] = append(s.voids[vk], rg)
			}
			done = append(done, name)
		}
	}
	s.mu.Unlock()
	switch {
	case len(refused) == 0:
		answer(http.StatusOK, rnc, voidAll, "Anulación procesada", []string{"Las secuencias fueron anuladas correctamente."})
	case len(done) > 0:
		answer(http.StatusOK, rnc, voidPartial, "Anulación procesada parcialmente",
			append([]string{"Las secuencias fueron anuladas correctamente. Con excepción de las secuencias del detalle."}, refused...))
	default:
		answer(http.StatusBadRequest, rnc, voidNone, "Anulación rechazada", append([]string{"No fue posible anular las siguientes secuencias."}, refused...))
	}
}
