package dgiisim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/sello-do/sello"
)

// Buyer RNCs (RNCComprador) that force an outcome; see the package doc.
const (
	RNCRejectSpent        = "999000002" // Rechazado, secuenciaUtilizada=true
	RNCRejectReusable     = "999000003" // Rechazado, secuenciaUtilizada=false
	RNCConditional        = "999000004" // Aceptado Condicional
	RNCSlow               = "999000005" // En Proceso for 10× ProcessingDelay, then Aceptado
	RNCOutage             = "999000006" // the send is answered 503, nothing recorded
	RNCTimeoutAfterAccept = "999000007" // recorded (Aceptado), then the answer stalls
)

// Estado codes.
const (
	codigoNoEncontrado = 0
	codigoAceptado     = 1
	codigoRechazado    = 2
	codigoEnProceso    = 3
	codigoCondicional  = 4
)

var estados = map[int]string{
	codigoNoEncontrado: "No encontrado",
	codigoAceptado:     "Aceptado",
	codigoRechazado:    "Rechazado",
	codigoEnProceso:    "En Proceso",
	codigoCondicional:  "Aceptado Condicional",
}

// message is one validation message.
type message struct {
	codigo int
	valor  string
}

// verdict is DGII's decision on a send.
type verdict struct {
	codigo int
	// spent is secuenciaUtilizada: the e-NCF cannot be used again (true
	// for acceptances, and for rejections that burn the number).
	spent    bool
	mensajes []message
}

// The simulator's validation messages. DGII's own message codes are not
// published; these are the simulator's (listed in the package doc).
func msgStructure(detail string) message {
	return message{10, "La estructura del comprobante (XML) no es válida: " + detail}
}

var (
	msgSignature    = message{11, "Certificado y/o firma inválida."}
	msgNotAuth      = message{12, "El e-NCF no está autorizado para el RNC Emisor del comprobante fiscal electrónico."}
	msgAmounts      = message{30, "El valor del campo MontoTotal no corresponde a la sumatoria de los montos del comprobante."}
	msgConditional  = message{40, "El comprobante no cumplió una validación no excluyente; corríjala en los próximos comprobantes."}
	msgRFCEOverflow = message{13, "El monto total es igual o mayor a RD$250,000.00: envíe el e-CF completo al servicio de recepción de e-CF."}
)

func msgFormat(detail string) message {
	return message{31, "El comprobante no cumple las validaciones del formato e-CF: " + detail}
}

func msgSpent(encf, rnc string) message {
	return message{20, fmt.Sprintf("Secuencia utilizada: el e-NCF %s ya fue utilizado por el RNC %s.", encf, rnc)}
}

func msgVoided(encf string) message {
	return message{21, fmt.Sprintf("El e-NCF %s fue anulado y no puede utilizarse.", encf)}
}

// docKey identifies an e-NCF of an issuer in an environment.
type docKey struct {
	env  sello.Environment
	rnc  string
	encf string
}

// submission is one send of an e-CF (recepción) or an RFCE (recepción FC).
type submission struct {
	trackID string // "" for an RFCE
	rfce    bool
	docKey
	tipo         string
	rncComprador string
	idExtranjero string
	montoTotal   string
	totalITBIS   string
	fechaEmision string
	fechaFirma   string
	securityCode string
	// formatProblem is a broken rule of DGII's format document in a
	// schema-valid e-CF: rejected, the e-NCF spent, like message 30.
	formatProblem *message
	received      time.Time
	readyAt       time.Time
	verdict       verdict
}

// codigo is the submission's state at now.
func (sub *submission) codigo(now time.Time) int {
	if now.Before(sub.readyAt) {
		return codigoEnProceso
	}
	return sub.verdict.codigo
}

// fields reads the submission's data from a parsed e-CF or RFCE.
func (sub *submission) fields(doc *node) {
	enc := doc.child("Encabezado")
	sub.tipo = enc.get("IdDoc", "TipoeCF")
	sub.encf = enc.get("IdDoc", "eNCF")
	sub.rnc = enc.get("Emisor", "RNCEmisor")
	sub.fechaEmision = enc.get("Emisor", "FechaEmision")
	sub.rncComprador = enc.get("Comprador", "RNCComprador")
	sub.idExtranjero = enc.get("Comprador", "IdentificadorExtranjero")
	sub.montoTotal = enc.get("Totales", "MontoTotal")
	sub.totalITBIS = enc.get("Totales", "TotalITBIS")
	sub.fechaFirma = doc.get("FechaHoraFirma")
	if sv := doc.get("Signature", "SignatureValue"); len(sv) >= 6 {
		sub.securityCode = sv[:6]
	}
	if cs := enc.get("CodigoSeguridadeCF"); cs != "" {
		sub.securityCode = cs
	}
}

var (
	rncRE    = regexp.MustCompile(`^(\d{9}|\d{11})$`)
	amountRE = regexp.MustCompile(`^\d{1,16}(\.\d{1,2})?$`)
)

// check returns what makes the document structurally invalid, or "".
func (sub *submission) check(root, fileRNC, fileENCF string) string {
	switch {
	case sub.tipo == "":
		return "falta el campo TipoeCF"
	case sub.encf == "":
		return "falta el campo eNCF"
	case sub.rnc == "":
		return "falta el campo RNCEmisor"
	case !rncRE.MatchString(sub.rnc):
		return "el RNCEmisor no es válido"
	case sub.montoTotal == "" || !amountRE.MatchString(sub.montoTotal):
		return "el campo MontoTotal falta o no es válido"
	}
	e, err := sello.ParseENCF(sub.encf)
	switch {
	case err != nil:
		return "el eNCF no es válido"
	case string(e.Type) != sub.tipo:
		return "el TipoeCF no corresponde al eNCF"
	case root == "RFCE" && sub.tipo != "32":
		return "el resumen solo aplica a facturas de consumo (32)"
	case sub.rnc != fileRNC || sub.encf != fileENCF:
		return "el nombre del archivo no corresponde a RNCEmisor y eNCF"
	}
	return ""
}

// under250k reports whether the amount is below RD$250,000.00.
func under250k(amount string) bool {
	f, err := strconv.ParseFloat(amount, 64)
	return err == nil && f < 250000
}

// decide gives a new send its verdict, the reuse and void rules first,
// then the forced outcomes, and records it. s.mu must be held.
func (s *Simulator) decide(sub *submission, invalid *message, now time.Time) {
	sub.received = now
	sub.readyAt = now.Add(s.cfg.ProcessingDelay)
	if sub.rfce {
		sub.readyAt = now
	}
	v := verdict{codigo: codigoAceptado, spent: true}
	switch {
	case invalid != nil:
		v = verdict{codigo: codigoRechazado, mensajes: []message{*invalid}}
	case s.voided(sub.docKey):
		v = verdict{codigo: codigoRechazado, spent: true, mensajes: []message{msgVoided(sub.encf)}}
	case s.spent(sub.docKey):
		v = verdict{codigo: codigoRechazado, spent: true, mensajes: []message{msgSpent(sub.encf, sub.rnc)}}
	case sub.formatProblem != nil:
		v = verdict{codigo: codigoRechazado, spent: true, mensajes: []message{*sub.formatProblem}}
	case sub.rfce && !under250k(sub.montoTotal):
		v = verdict{codigo: codigoRechazado, mensajes: []message{msgRFCEOverflow}}
	case sub.rncComprador == RNCRejectSpent:
		v = verdict{codigo: codigoRechazado, spent: true, mensajes: []message{msgAmounts}}
	case sub.rncComprador == RNCRejectReusable:
		v = verdict{codigo: codigoRechazado, mensajes: []message{msgNotAuth}}
	case sub.rncComprador == RNCConditional:
		v = verdict{codigo: codigoCondicional, spent: true, mensajes: []message{msgConditional}}
	case sub.rncComprador == RNCSlow && !sub.rfce:
		sub.readyAt = now.Add(10 * s.cfg.ProcessingDelay)
	}
	sub.verdict = v
	s.record(sub)
}

// spent reports whether an earlier send of the e-NCF burnt it. s.mu must
// be held.
func (s *Simulator) spent(k docKey) bool {
	for _, prev := range s.byDoc[k] {
		if prev.verdict.spent {
			return true
		}
	}
	return false
}

// record keeps sub, forgetting the oldest sends beyond MaxSubmissions.
// s.mu must be held.
func (s *Simulator) record(sub *submission) {
	if sub.trackID != "" {
		s.byTrackID[sub.trackID] = sub
	}
	s.byDoc[sub.docKey] = append(s.byDoc[sub.docKey], sub)
	s.order = append(s.order, sub)
	for len(s.order) > s.cfg.MaxSubmissions {
		old := s.order[0]
		s.order[0] = nil
		s.order = s.order[1:]
		delete(s.byTrackID, old.trackID)
		if l := s.byDoc[old.docKey]; len(l) <= 1 {
			delete(s.byDoc, old.docKey)
		} else {
			s.byDoc[old.docKey] = l[1:]
		}
	}
}

func (m message) obj(codeAsString bool) obj {
	var c any = m.codigo
	if codeAsString {
		c = strconv.Itoa(m.codigo)
	}
	return obj{{"valor", m.valor}, {"codigo", c}}
}

func messagesObj(ms []message, codeAsString bool) []obj {
	out := []obj{}
	for _, m := range ms {
		out = append(out, m.obj(codeAsString))
	}
	return out
}

// recepcion receives an e-CF and answers a trackId; the verdict comes
// later through consultaresultado.
func (s *Simulator) recepcion(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	refuse := func(status int, code, msg string) {
		respond(w, r, status, obj{{"trackId", nil}, {"error", nullable(code)}, {"mensaje", msg}}, "RespuestaRecepcion", "")
	}
	up, fail := readUpload(w, r)
	if fail != "" {
		refuse(http.StatusBadRequest, "", fail)
		return
	}
	m := fileNameRE.FindStringSubmatch(up.fileName)
	if m == nil {
		refuse(http.StatusBadRequest, "3243", "La longitud del nombre del archivo no es válida")
		return
	}
	sub := &submission{trackID: uuid.NewString(), docKey: docKey{env: env, rnc: m[1], encf: m[2]}}
	var invalid *message
	doc, err := parseXML(up.content)
	switch {
	case err != nil:
		invalid = ptr(msgStructure(err.Error()))
	case doc.name != "ECF":
		invalid = ptr(msgStructure("el elemento raíz no es ECF"))
	default:
		sub.fields(doc)
		if p := sub.check(doc.name, m[1], m[2]); p != "" {
			invalid = ptr(msgStructure(p))
			sub.docKey = docKey{env: env, rnc: m[1], encf: m[2]}
		} else if sub.tipo == "32" && under250k(sub.montoTotal) {
			refuse(http.StatusBadRequest, "", "Las Facturas de Consumo Electrónica con un monto inferior a los RD$250,000.00 no son recibidas por este servicio: remita el resumen al servicio de recepción de resumen factura de consumo.")
			return
		} else if p := schemaProblem(doc, sub.tipo); p != "" {
			invalid = ptr(msgStructure(p))
		} else if p := formatProblem(doc, sub.tipo); p != "" {
			sub.formatProblem = ptr(msgFormat(p))
		}
	}
	if invalid == nil && sub.rncComprador == RNCOutage {
		unavailable(w)
		return
	}
	if invalid == nil && s.cfg.Verify != nil {
		if _, err := s.cfg.Verify(up.content); err != nil {
			invalid = &msgSignature
		}
	}
	s.mu.Lock()
	s.decide(sub, invalid, s.now())
	s.mu.Unlock()
	s.log.Info("dgiisim recepcion", "env", env.Slug(), "rnc", sub.rnc, "encf", sub.encf, "track_id", sub.trackID, "codigo", sub.verdict.codigo)
	if sub.rncComprador == RNCTimeoutAfterAccept && invalid == nil {
		if s.stall(r.Context()) != nil {
			return
		}
	}
	respond(w, r, http.StatusOK, obj{{"trackId", sub.trackID}, {"error", nil}, {"mensaje", nil}}, "RespuestaRecepcion", "")
}

func ptr[T any](v T) *T { return &v }

// usDate is how consultaresultado writes fechaRecepcion in practice.
func usDate(t time.Time) string { return t.In(sello.DRZone).Format("1/2/2006 3:04:05 PM") }

// consultaResultado answers the state of a trackId.
func (s *Simulator) consultaResultado(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	id := query(r, "trackid")
	now := s.now()
	s.mu.Lock()
	sub, ok := s.byTrackID[id]
	if ok && sub.env != env {
		ok = false
	}
	var body obj
	if !ok {
		body = obj{
			{"trackId", id}, {"codigo", "0"}, {"estado", estados[codigoNoEncontrado]}, {"rnc", nil},
			{"encf", nil}, {"secuenciaUtilizada", false}, {"fechaRecepcion", nil}, {"mensajes", []obj{}},
		}
	} else {
		c := sub.codigo(now)
		spent, ms := false, []obj{}
		if c != codigoEnProceso {
			spent, ms = sub.verdict.spent, messagesObj(sub.verdict.mensajes, false)
			if len(ms) == 0 {
				ms = []obj{{{"valor", ""}, {"codigo", 0}}} // as DGII answers acceptances
			}
		}
		// codigo as a string and "encf" in lower case: what DGII sends in
		// practice, not what its documentation shows.
		body = obj{
			{"trackId", sub.trackID}, {"codigo", strconv.Itoa(c)}, {"estado", estados[c]}, {"rnc", sub.rnc},
			{"encf", sub.encf}, {"secuenciaUtilizada", spent}, {"fechaRecepcion", usDate(sub.received)}, {"mensajes", ms},
		}
	}
	s.mu.Unlock()
	respond(w, r, http.StatusOK, body, "RespuestaConsultaTrackId", "")
}

// recepcionFC receives an RFCE and answers its verdict at once: 200 for
// acceptances, 400 with the same body for rejections (as DGII was seen to).
func (s *Simulator) recepcionFC(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	answer := func(v verdict, encf any) {
		status := http.StatusOK
		if v.codigo == codigoRechazado {
			status = http.StatusBadRequest
		}
		respond(w, r, status, obj{
			{"codigo", v.codigo}, {"estado", estados[v.codigo]}, {"mensajes", messagesObj(v.mensajes, true)},
			{"encf", encf}, {"secuenciaUtilizada", v.spent},
		}, "Respuesta", "")
	}
	up, fail := readUpload(w, r)
	if fail != "" {
		answer(verdict{codigo: codigoRechazado, mensajes: []message{msgStructure(fail)}}, nil)
		return
	}
	m := fileNameRE.FindStringSubmatch(up.fileName)
	if m == nil {
		answer(verdict{codigo: codigoRechazado, mensajes: []message{{3243, "La longitud del nombre del archivo no es válida"}}}, nil)
		return
	}
	sub := &submission{rfce: true, docKey: docKey{env: env, rnc: m[1], encf: m[2]}}
	var invalid *message
	doc, err := parseXML(up.content)
	switch {
	case err != nil:
		invalid = ptr(msgStructure(err.Error()))
	case doc.name != "RFCE":
		invalid = ptr(msgStructure("el elemento raíz no es RFCE"))
	default:
		sub.fields(doc)
		if p := sub.check(doc.name, m[1], m[2]); p != "" {
			invalid = ptr(msgStructure(p))
			sub.docKey = docKey{env: env, rnc: m[1], encf: m[2]}
		} else if p := amountProblem(doc); p != "" {
			invalid = ptr(msgStructure(p)) // the RFCE XSD's amounts, as the e-CF's
		}
	}
	if invalid == nil && sub.rncComprador == RNCOutage {
		unavailable(w)
		return
	}
	if invalid == nil && s.cfg.Verify != nil {
		if _, err := s.cfg.Verify(up.content); err != nil {
			invalid = &msgSignature
		}
	}
	s.mu.Lock()
	s.decide(sub, invalid, s.now())
	v := sub.verdict
	s.mu.Unlock()
	s.log.Info("dgiisim recepcion fc", "env", env.Slug(), "rnc", sub.rnc, "encf", sub.encf, "codigo", v.codigo)
	if sub.rncComprador == RNCTimeoutAfterAccept && invalid == nil {
		if s.stall(r.Context()) != nil {
			return
		}
	}
	answer(v, sub.encf)
}

// consultaRFCE answers the state of an RFCE by issuer, e-NCF and security
// code.
func (s *Simulator) consultaRFCE(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	k := docKey{env: env, rnc: query(r, "RNC_Emisor"), encf: query(r, "ENCF")}
	code := query(r, "Cod_Seguridad_eCF")
	s.mu.Lock()
	var found *submission
	for _, sub := range s.byDoc[k] {
		if sub.rfce && (code == "" || equalFold(code, sub.securityCode)) {
			found = sub
		}
	}
	body := obj{{"rnc", k.rnc}, {"encf", k.encf}, {"secuenciaUtilizada", false}, {"codigo", "0"}, {"estado", estados[0]}, {"mensajes", []obj{}}}
	if found != nil {
		body = obj{
			{"rnc", k.rnc}, {"encf", k.encf}, {"secuenciaUtilizada", found.verdict.spent},
			{"codigo", strconv.Itoa(found.verdict.codigo)}, {"estado", estados[found.verdict.codigo]},
			{"mensajes", messagesObj(found.verdict.mensajes, false)},
		}
	}
	s.mu.Unlock()
	respond(w, r, http.StatusOK, body, "RespuestaConsultaRFCE", "")
}

// consultaTrackIDs lists every recepción send of an e-NCF.
func (s *Simulator) consultaTrackIDs(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	rnc, encf := query(r, "rncemisor"), query(r, "encf")
	var problems []string
	switch {
	case rnc == "":
		problems = append(problems, "El campo RNC Emisor es requerido.")
	case !rncRE.MatchString(rnc):
		problems = append(problems, "La longitud del RNC Emisor es inválida.")
	}
	switch {
	case encf == "":
		problems = append(problems, "El campo ENCF es requerido.")
	case len(encf) != 13:
		problems = append(problems, "La longitud del ENCF es inválida.")
	}
	if len(problems) > 0 {
		respond(w, r, http.StatusBadRequest, obj{{"mensajes", problems}}, "Error", "")
		return
	}
	now := s.now()
	s.mu.Lock()
	list := []obj{}
	for _, sub := range s.byDoc[docKey{env, rnc, encf}] {
		if !sub.rfce {
			list = append(list, obj{
				{"trackId", sub.trackID}, {"estado", estados[sub.codigo(now)]},
				{"fechaRecepcion", sub.received.In(sello.DRZone).Format("2006-01-02T15:04:05")},
			})
		}
	}
	s.mu.Unlock()
	if len(list) == 0 {
		// Seen in practice: an error carrying estado "TrackId no encontrado.".
		respond(w, r, http.StatusNotFound, obj{{"trackId", nil}, {"estado", "TrackId no encontrado."}, {"fechaRecepcion", nil}}, "TrackingDetalle", "")
		return
	}
	respond(w, r, http.StatusOK, list, "ArrayOfTrackingDetalle", "TrackingDetalle")
}

// consultaEstado answers the state of an e-CF by issuer, e-NCF, buyer and
// security code.
func (s *Simulator) consultaEstado(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	k := docKey{env: env, rnc: query(r, "rncemisor"), encf: query(r, "ncfelectronico")}
	if k.rnc == "" || k.encf == "" {
		respond(w, r, http.StatusBadRequest, obj{{"mensajes", []string{"Los campos RncEmisor y NcfElectronico son requeridos."}}}, "Error", "")
		return
	}
	buyer, code := query(r, "rnccomprador"), query(r, "codigoseguridad")
	now := s.now()
	s.mu.Lock()
	// The e-CF's state is its accepted send if any, else its latest
	// validated one.
	var found *submission
	for _, sub := range s.byDoc[k] {
		c := sub.codigo(now)
		if c == codigoEnProceso || (buyer != "" && sub.rncComprador != "" && buyer != sub.rncComprador) ||
			(code != "" && !equalFold(code, sub.securityCode)) {
			continue
		}
		if found == nil || found.verdict.codigo == codigoRechazado {
			found = sub
		}
	}
	body := obj{
		{"codigo", codigoNoEncontrado}, {"estado", estados[codigoNoEncontrado]}, {"rncEmisor", k.rnc}, {"ncfElectronico", k.encf},
		{"montoTotal", nil}, {"totalITBIS", nil}, {"fechaEmision", nil}, {"fechaFirma", nil},
		{"rncComprador", nil}, {"codigoSeguridad", nil}, {"idExtranjero", nil},
	}
	if found != nil {
		c := found.verdict.codigo
		if c == codigoCondicional && !found.rfce {
			c = codigoAceptado // "Aceptado condicional" shows only for RFCEs
		}
		body = obj{
			{"codigo", c}, {"estado", estados[c]}, {"rncEmisor", found.rnc}, {"ncfElectronico", found.encf},
			{"montoTotal", number(found.montoTotal)}, {"totalITBIS", number(found.totalITBIS)},
			{"fechaEmision", found.fechaEmision}, {"fechaFirma", found.fechaFirma},
			{"rncComprador", nullable(found.rncComprador)}, {"codigoSeguridad", found.securityCode},
			{"idExtranjero", nullable(found.idExtranjero)},
		}
	}
	s.mu.Unlock()
	respond(w, r, http.StatusOK, body, "RespuestaConsultaEstado", "")
}

// number renders an amount as a JSON number, exactly as written.
func number(s string) any {
	if !amountRE.MatchString(s) {
		return nil
	}
	return json.Number(s)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
