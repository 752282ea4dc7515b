package dgiisim

import (
	"bytes"
	"crypto/x509"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"

	"github.com/sello-do/sello"
)

// The emisor-receptor services (FACTS §1.13): the simulator plays the
// receiver of every buyer in its directory, at {base}/{env}/emisorreceptor,
// so a sender's delivery of an accepted e-CF can be tested over HTTP. The
// buyer is the posted e-CF's RNCComprador; its directory entry says how
// the receiver behaves:
//
//	131880681, 999000010  authentication required (the entry declares it):
//	                      without a valid Bearer token, 401
//	999000011             no authentication
//	999000012             answers 503 to the first ReceiverDownPosts posts
//	                      of each e-CF, then receives it (a receiver down,
//	                      then back)
//	999000021…999000024   ARECF Estado 1 (no recibido) with
//	                      CodigoMotivoNoRecibido 1…4
//
// The same receivers take commercial approvals (ACECF) of the documents
// their taxpayer issued, at fe/aprobacioncomercial/api/ecf: the receiving
// taxpayer is the ACECF's RNCEmisor, authentication as above, and 200 for
// a signed ACECF (file {RNCComprador}{eNCF}.xml), 400 for anything else
// (not an ACECF, a bad file name, a signature that does not verify).
// 999000012 answers 503 to the first ReceiverDownPosts posts of each
// approval; 999000013 (RNCAcceptanceDown) always answers 503; 999000014
// (RNCAcceptanceConflict) always answers 409, as Sello's own receiver once
// did to a changed verdict.
//
// Any other buyer is not in the directory (not electronic); its e-CF posted
// here anyway gets Estado 1, code 4. An e-CF that does not parse or whose
// signature does not verify gets Estado 1, code 1 or 2. Posting an e-CF
// already received (same environment, RNCEmisor and e-NCF) answers the
// stored acuse again. The ARECF is signed with Config.Sign.

// Test RNCs of the receivers; see above.
const (
	RNCReceiverDown = "999000012"
	// RNCAcceptanceDown's commercial approval service always answers 503.
	RNCAcceptanceDown = "999000013"
	// RNCAcceptanceConflict's commercial approval service always answers
	// 409 Conflict.
	RNCAcceptanceConflict = "999000014"
	// RNCNotReceived is the first of four: RNCNotReceived+n-1 answers
	// CodigoMotivoNoRecibido n.
	RNCNotReceived = "999000021"
)

// ReceiverDownPosts is how many posts of each e-CF the receiver of
// RNCReceiverDown answers 503 before it receives it.
const ReceiverDownPosts = 2

// directoryEntry is a taxpayer of the simulator's directory.
type directoryEntry struct {
	nombre, rnc string
	auth        bool // declares an authentication host (urlOpcional)
	object      bool // obtenerdirectorioporrnc answers one object, not a list
}

var directory = []directoryEntry{
	{nombre: "DGII EMISOR RECEPTOR DE PRUEBAS", rnc: RNCDGIITest, auth: true},
	{nombre: "COMPRADOR SIMULADO OBJETO SRL", rnc: RNCDirectoryObject, auth: true, object: true},
	{nombre: "COMPRADOR SIMULADO SIN AUTENTICACION SRL", rnc: RNCDirectoryNoAuth},
	{nombre: "COMPRADOR SIMULADO RECEPTOR CAIDO SRL", rnc: RNCReceiverDown},
	{nombre: "EMISOR SIMULADO ACEPTACION CAIDA SRL", rnc: RNCAcceptanceDown},
	{nombre: "EMISOR SIMULADO ACEPTACION EN CONFLICTO SRL", rnc: RNCAcceptanceConflict},
	{nombre: "COMPRADOR SIMULADO NO RECIBIDO 1 SRL", rnc: "999000021"},
	{nombre: "COMPRADOR SIMULADO NO RECIBIDO 2 SRL", rnc: "999000022"},
	{nombre: "COMPRADOR SIMULADO NO RECIBIDO 3 SRL", rnc: "999000023"},
	{nombre: "COMPRADOR SIMULADO NO RECIBIDO 4 SRL", rnc: "999000024"},
}

// findDirectoryEntry returns the entry of rnc, nil when it is not in the
// directory.
func findDirectoryEntry(rnc string) *directoryEntry {
	for i := range directory {
		if directory[i].rnc == rnc {
			return &directory[i]
		}
	}
	return nil
}

// receiptKey identifies an e-CF a simulated receiver got.
type receiptKey struct {
	env             sello.Environment
	rncEmisor, encf string
}

// receipt is what a simulated receiver did with one e-CF.
type receipt struct {
	rncComprador string
	estado, code int
	arecf        []byte // the signed acuse answered, kept to answer again
	posts        int    // posts answered with an ARECF
	refused      int    // posts answered 503 (RNCReceiverDown)
}

// Receipt is one e-CF a simulated receiver got, for tests to inspect.
type Receipt struct {
	Environment  sello.Environment
	RNCEmisor    string
	RNCComprador string
	ENCF         string
	// Estado and Code are the ARECF's Estado and CodigoMotivoNoRecibido.
	Estado, Code int
	// Posts counts the posts answered with an ARECF (more than one means
	// the e-CF was sent again), Refused those answered 503.
	Posts, Refused int
	ARECF          []byte
}

// Receipts returns every e-CF the simulated receivers got, in no order.
func (s *Simulator) Receipts() []Receipt {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Receipt, 0, len(s.receipts))
	for k, r := range s.receipts {
		out = append(out, Receipt{
			Environment: k.env, RNCEmisor: k.rncEmisor, RNCComprador: r.rncComprador, ENCF: k.encf,
			Estado: r.estado, Code: r.code, Posts: r.posts, Refused: r.refused, ARECF: r.arecf,
		})
	}
	return out
}

// emisorReceptor serves the receiver services under {env}/emisorreceptor;
// route is the method and the path after it, lower case.
func (s *Simulator) emisorReceptor(w http.ResponseWriter, r *http.Request, env sello.Environment, route string) {
	switch route {
	case "GET fe/autenticacion/api/semilla":
		s.semilla(w, r, env)
	case "POST fe/autenticacion/api/validacioncertificado":
		s.validarSemilla(w, r, env)
	case "POST fe/recepcion/api/ecf":
		s.recepcionReceptor(w, r, env)
	case "POST fe/aprobacioncomercial/api/ecf":
		s.aprobacionReceptor(w, r, env)
	default:
		http.NotFound(w, r)
	}
}

// recepcionReceptor receives an e-CF as its buyer's receiver and answers a
// signed ARECF.
func (s *Simulator) recepcionReceptor(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	up, fail := readUpload(w, r)
	if fail != "" {
		http.Error(w, fail, http.StatusBadRequest)
		return
	}
	m := fileNameRE.FindStringSubmatch(up.fileName)
	doc, err := parseXML(up.content)
	if err != nil || doc.name != "ECF" || m == nil {
		http.Error(w, "El archivo no es un e-CF válido.", http.StatusBadRequest)
		return
	}
	k := receiptKey{env: env, rncEmisor: doc.get("Encabezado", "Emisor", "RNCEmisor"), encf: doc.get("Encabezado", "IdDoc", "eNCF")}
	buyer := doc.get("Encabezado", "Comprador", "RNCComprador")
	entry := findDirectoryEntry(buyer)
	if entry != nil && entry.auth && !s.authorized(r, env) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	rc := s.receipts[k]
	if rc == nil {
		rc = &receipt{rncComprador: buyer}
		s.receipts[k] = rc
	}
	if buyer == RNCReceiverDown && rc.arecf == nil && rc.refused < ReceiverDownPosts {
		rc.refused++
		unavailable(w)
		return
	}
	if rc.arecf == nil {
		switch {
		case m[1] != k.rncEmisor || m[2] != k.encf || k.rncEmisor == "" || k.encf == "":
			rc.estado, rc.code = 1, 1
		case s.cfg.Verify != nil && !verified(s.cfg.Verify, up.content):
			rc.estado, rc.code = 1, 2
		case entry == nil:
			rc.estado, rc.code = 1, 4
		case strings.HasPrefix(buyer, "99900002") && buyer >= RNCNotReceived && buyer <= "999000024":
			rc.estado, rc.code = 1, int(buyer[8]-'0')
		}
		arecf, err := s.signARECF(k, buyer, rc.estado, rc.code)
		if err != nil {
			delete(s.receipts, k)
			http.Error(w, "No se pudo firmar el acuse: "+err.Error(), http.StatusInternalServerError)
			return
		}
		rc.arecf = arecf
	}
	rc.posts++
	s.log.Info("dgiisim emisorreceptor recepcion", "env", env.Slug(), "rnc", k.rncEmisor, "encf", k.encf, "buyer", buyer, "estado", rc.estado, "posts", rc.posts)
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Write(rc.arecf)
}

// verified reports whether verify accepts b's signature.
func verified(verify func([]byte) (*x509.Certificate, error), b []byte) bool {
	_, err := verify(b)
	return err == nil
}

// xmlEscape is s as XML text.
func xmlEscape(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// signARECF builds the acuse of the e-CF k for buyer (ARECF.xsd) and signs
// it with Config.Sign (unsigned without one).
func (s *Simulator) signARECF(k receiptKey, buyer string, estado, code int) ([]byte, error) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><ARECF><DetalleAcusedeRecibo><Version>1.0</Version>`)
	fmt.Fprintf(&b, "<RNCEmisor>%s</RNCEmisor><RNCComprador>%s</RNCComprador><eNCF>%s</eNCF><Estado>%d</Estado>",
		xmlEscape(k.rncEmisor), xmlEscape(buyer), xmlEscape(k.encf), estado)
	if estado != 0 {
		fmt.Fprintf(&b, "<CodigoMotivoNoRecibido>%d</CodigoMotivoNoRecibido>", code)
	}
	fmt.Fprintf(&b, "<FechaHoraAcuseRecibo>%s</FechaHoraAcuseRecibo></DetalleAcusedeRecibo></ARECF>",
		s.now().In(sello.DRZone).Format("02-01-2006 15:04:05"))
	if s.cfg.Sign == nil {
		return []byte(b.String()), nil
	}
	return s.cfg.Sign([]byte(b.String()))
}

// approvalReceipt is what a simulated issuer did with the approvals of one
// of its e-CFs.
type approvalReceipt struct {
	rncComprador string
	estado       string
	acecf        []byte // the last ACECF taken
	posts        int    // posts answered 200
	refused      int    // posts answered 503
}

// ApprovalReceipt is the commercial approval of one e-CF a simulated
// issuer took, for tests to inspect.
type ApprovalReceipt struct {
	Environment  sello.Environment
	RNCEmisor    string
	RNCComprador string
	ENCF         string
	// Estado is the ACECF's Estado: "1" approved, "2" rejected.
	Estado string
	// Posts counts the posts answered 200, Refused those answered 503.
	Posts, Refused int
	ACECF          []byte
}

// ApprovalReceipts returns every commercial approval the simulated issuers
// got, in no order.
func (s *Simulator) ApprovalReceipts() []ApprovalReceipt {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ApprovalReceipt, 0, len(s.approvals))
	for k, a := range s.approvals {
		out = append(out, ApprovalReceipt{
			Environment: k.env, RNCEmisor: k.rncEmisor, RNCComprador: a.rncComprador, ENCF: k.encf,
			Estado: a.estado, Posts: a.posts, Refused: a.refused, ACECF: a.acecf,
		})
	}
	return out
}

// aprobacionReceptor takes a commercial approval (ACECF) as the receiver
// of the e-CF's issuer: 200 ("satisfactorio") or 400 ("insatisfactorio").
func (s *Simulator) aprobacionReceptor(w http.ResponseWriter, r *http.Request, env sello.Environment) {
	up, fail := readUpload(w, r)
	if fail != "" {
		http.Error(w, fail, http.StatusBadRequest)
		return
	}
	m := fileNameRE.FindStringSubmatch(up.fileName)
	doc, err := parseXML(up.content)
	if err != nil || doc.name != "ACECF" || m == nil {
		http.Error(w, "El archivo no es una aprobación comercial (ACECF) válida.", http.StatusBadRequest)
		return
	}
	d := doc.child("DetalleAprobacionComercial")
	k := receiptKey{env: env, rncEmisor: d.get("RNCEmisor"), encf: d.get("eNCF")}
	buyer, estado := d.get("RNCComprador"), d.get("Estado")
	if entry := findDirectoryEntry(k.rncEmisor); entry != nil && entry.auth && !s.authorized(r, env) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	switch {
	case m[1] != buyer || m[2] != k.encf:
		http.Error(w, "El nombre del archivo no corresponde a RNCComprador y eNCF.", http.StatusBadRequest)
		return
	case estado != "1" && estado != "2":
		http.Error(w, "El Estado debe ser 1 o 2.", http.StatusBadRequest)
		return
	case s.cfg.Verify != nil && !verified(s.cfg.Verify, up.content):
		http.Error(w, "La firma del XML no es válida.", http.StatusBadRequest)
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.approvals[k]
	if a == nil {
		a = &approvalReceipt{rncComprador: buyer}
		s.approvals[k] = a
	}
	if k.rncEmisor == RNCAcceptanceDown || (k.rncEmisor == RNCReceiverDown && a.posts == 0 && a.refused < ReceiverDownPosts) {
		a.refused++
		unavailable(w)
		return
	}
	if k.rncEmisor == RNCAcceptanceConflict {
		a.refused++
		http.Error(w, "Conflict", http.StatusConflict)
		return
	}
	a.estado, a.acecf = estado, up.content
	a.posts++
	s.log.Info("dgiisim emisorreceptor aprobacioncomercial", "env", env.Slug(), "rnc", k.rncEmisor, "encf", k.encf, "buyer", buyer, "estado", estado, "posts", a.posts)
	w.WriteHeader(http.StatusOK)
}
