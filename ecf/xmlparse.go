package ecf

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sello-do/sello"
)

// Size limits of the XML documents Sello reads from DGII and other
// taxpayers: far above what a valid one holds (an e-CF has at most 1,000
// lines on the P2P route; an ACECF or ARECF is a few KB with its signature).
const (
	MaxECFSize   = 8 << 20
	MaxReplySize = 64 << 10
)

// maxXMLDepth bounds element nesting; DGII's documents nest 7 deep, their
// signatures a little more.
const maxXMLDepth = 32

// ECFHeader is what Sello reads from an inbound signed e-CF (one a supplier
// posts to the receiver endpoint) to acknowledge it and file it.
type ECFHeader struct {
	TipoeCF                 sello.DocumentType
	ENCF                    string
	RNCEmisor               string
	RazonSocialEmisor       string
	RNCComprador            string // "" when absent
	IdentificadorExtranjero string // "" when absent
	RazonSocialComprador    string // "" when absent
	FechaEmision            sello.Date
	MontoTotal              string // as written ("1180.00")
	TotalITBIS              string // as written, "" when absent
	FechaHoraFirma          time.Time
	// SecurityCode is the first six characters of the SignatureValue (the
	// código de seguridad of the printed representation), "" when unsigned.
	SecurityCode string
}

// ParseECFHeader reads the key fields of a signed e-CF: root <ECF> without
// namespace, UTF-8, at most MaxECFSize bytes, no DOCTYPE (so no entity
// definitions), within xmlchar's limits (attributes, namespace
// declarations); a byte order mark is skipped. It does not check the
// signature or the XSD.
//
// Returns PAYLOAD_TOO_LARGE, INVALID_REQUEST when the XML is not a
// well-formed e-CF, or VALIDATION_FAILED with a detail per missing or
// invalid field (paths like "ECF.Encabezado.IdDoc.eNCF").
func ParseECFHeader(data []byte) (*ECFHeader, error) {
	f := map[string]string{}
	if err := scanXML(data, MaxECFSize, "ECF", headerFields, f); err != nil {
		return nil, err
	}
	return headerOf(f)
}

// headerFields are the elements ParseECFHeader reads.
var headerFields = newFieldSet(
	"Encabezado/IdDoc/TipoeCF", "Encabezado/IdDoc/eNCF",
	"Encabezado/Emisor/RNCEmisor", "Encabezado/Emisor/RazonSocialEmisor", "Encabezado/Emisor/FechaEmision",
	"Encabezado/Comprador/RNCComprador", "Encabezado/Comprador/IdentificadorExtranjero", "Encabezado/Comprador/RazonSocialComprador",
	"Encabezado/Totales/MontoTotal", "Encabezado/Totales/TotalITBIS",
	"FechaHoraFirma", "Signature/SignatureValue",
)

// ReceivedECF is an e-CF received from another taxpayer, read in one pass
// by ReadReceivedECF.
type ReceivedECF struct {
	ECFHeader
	// Document is the e-CF in Sello's model, held to its XSD (ReadXML);
	// nil when it is not.
	Document *Document
	// Invalid is why the e-CF does not read into the model: ReadXML's
	// error. Nil when Document is set.
	Invalid error
}

// ReadReceivedECF reads data once for what ParseECFHeader and ReadXML read
// from it: the header, or ParseECFHeader's error, and the document, or
// ReadXML's error in Invalid. The answers are those of the two functions.
func ReadReceivedECF(data []byte) (*ReceivedECF, error) {
	if len(data) > MaxECFSize {
		return nil, tooLarge("ECF", len(data), MaxECFSize)
	}
	bad := invalidXML("ECF")
	f := map[string]string{}
	tree := newTreeReader(data)
	errs := readTokens(data, bad, newFieldsReader("ECF", headerFields, f, bad), tree)
	if errs[0] != nil {
		return nil, errs[0]
	}
	h, err := headerOf(f)
	if err != nil {
		return nil, err
	}
	r := &ReceivedECF{ECFHeader: *h, Invalid: errs[1]}
	if r.Invalid == nil {
		r.Document, r.Invalid = checkRead(tree.doc, tree.p)
	}
	return r, nil
}

// headerOf is ParseECFHeader's header of the fields read at headerPaths.
func headerOf(f map[string]string) (*ECFHeader, error) {
	var v validation
	path := func(p string) string { return "ECF." + strings.ReplaceAll(p, "/", ".") }
	required := func(p string) string {
		s := f[p]
		if s == "" {
			v.add(path(p), "Required.")
		}
		return s
	}
	h := &ECFHeader{
		TipoeCF:                 sello.DocumentType(required("Encabezado/IdDoc/TipoeCF")),
		ENCF:                    required("Encabezado/IdDoc/eNCF"),
		RNCEmisor:               required("Encabezado/Emisor/RNCEmisor"),
		RazonSocialEmisor:       required("Encabezado/Emisor/RazonSocialEmisor"),
		RNCComprador:            f["Encabezado/Comprador/RNCComprador"],
		IdentificadorExtranjero: f["Encabezado/Comprador/IdentificadorExtranjero"],
		RazonSocialComprador:    f["Encabezado/Comprador/RazonSocialComprador"],
		MontoTotal:              required("Encabezado/Totales/MontoTotal"),
		TotalITBIS:              f["Encabezado/Totales/TotalITBIS"],
	}
	if h.TipoeCF != "" && !slices.Contains(sello.DocumentTypes, h.TipoeCF) {
		v.add(path("Encabezado/IdDoc/TipoeCF"), "Must be one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.")
	}
	if h.ENCF != "" {
		if e, err := sello.ParseENCF(h.ENCF); err != nil {
			v.addText(path("Encabezado/IdDoc/eNCF"), sello.ErrorText(err))
		} else if h.TipoeCF != "" && e.Type != h.TipoeCF {
			v.addf(path("Encabezado/IdDoc/eNCF"), "Must be of type %s, the TipoeCF.", h.TipoeCF)
		}
	}
	if h.RNCEmisor != "" {
		v.rnc(path("Encabezado/Emisor/RNCEmisor"), h.RNCEmisor)
	}
	if h.RNCComprador != "" {
		v.rnc(path("Encabezado/Comprador/RNCComprador"), h.RNCComprador)
	}
	if s := required("Encabezado/Emisor/FechaEmision"); s != "" {
		if d, ok := parseLooseDate(s); ok {
			h.FechaEmision = d
		} else {
			v.add(path("Encabezado/Emisor/FechaEmision"), "Must be a date dd-MM-yyyy.")
		}
	}
	for _, p := range []string{"Encabezado/Totales/MontoTotal", "Encabezado/Totales/TotalITBIS"} {
		if s := f[p]; s != "" {
			if _, err := ParseDecimal(s); err != nil {
				v.add(path(p), "Must be an amount like 1180.00.")
			}
		}
	}
	if s := required("FechaHoraFirma"); s != "" {
		if t, ok := parseDGIIDateTime(s); ok {
			h.FechaHoraFirma = t
		} else {
			v.add(path("FechaHoraFirma"), "Must be a date and time dd-MM-yyyy HH:mm:ss.")
		}
	}
	h.SecurityCode = securityCode(f["Signature/SignatureValue"])
	if err := v.err(); err != nil {
		return nil, err
	}
	return h, nil
}

// securityCode is the first six characters of a base64 SignatureValue,
// whose text may be wrapped on several lines.
func securityCode(sigValue string) string {
	var b strings.Builder
	for _, r := range sigValue {
		if unicode.IsSpace(r) {
			continue
		}
		b.WriteRune(r)
		if b.Len() == 6 {
			break
		}
	}
	if b.Len() < 6 {
		return ""
	}
	return b.String()
}

// ParseACECF reads a commercial approval (signed or not): root <ACECF>,
// UTF-8, at most MaxReplySize bytes, no DOCTYPE, within xmlchar's limits;
// a byte order mark is skipped. It does not check the signature. The
// result satisfies the same rules as ACECF.XML.
//
// Returns PAYLOAD_TOO_LARGE, INVALID_REQUEST when the XML is not a
// well-formed ACECF, or VALIDATION_FAILED with a detail per missing or
// invalid field (paths like "ACECF.eNCF").
func ParseACECF(data []byte) (*ACECF, error) {
	const d = acecfDetail
	f := map[string]string{}
	if err := scanXML(data, MaxReplySize, "ACECF", acecfFields, f); err != nil {
		return nil, err
	}
	var v validation
	version(&v, "ACECF.Version", f[d+"Version"])
	a := &ACECF{
		RNCEmisor:            f[d+"RNCEmisor"],
		ENCF:                 f[d+"eNCF"],
		MontoTotal:           f[d+"MontoTotal"],
		RNCComprador:         f[d+"RNCComprador"],
		DetalleMotivoRechazo: f[d+"DetalleMotivoRechazo"],
	}
	if day, ok := parseLooseDate(f[d+"FechaEmision"]); ok {
		a.FechaEmision = day
	} else {
		v.add("ACECF.FechaEmision", "Must be a date dd-MM-yyyy.")
	}
	a.Estado = ApprovalState(integer(&v, "ACECF.Estado", f[d+"Estado"]))
	if t, ok := parseDGIIDateTime(f[d+"FechaHoraAprobacionComercial"]); ok {
		a.At = t
	} else {
		v.add("ACECF.FechaHoraAprobacionComercial", "Must be a date and time dd-MM-yyyy HH:mm:ss.")
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := a.validate(); err != nil {
		return nil, err
	}
	return a, nil
}

// ParseARECF reads a receipt (signed or not): root <ARECF>, UTF-8, at most
// MaxReplySize bytes, no DOCTYPE, within xmlchar's limits; a byte order
// mark is skipped. It does not check the signature. The result satisfies
// the same rules as ARECF.XML.
//
// Returns PAYLOAD_TOO_LARGE, INVALID_REQUEST when the XML is not a
// well-formed ARECF, or VALIDATION_FAILED with a detail per missing or
// invalid field (paths like "ARECF.Estado").
func ParseARECF(data []byte) (*ARECF, error) {
	const d = arecfDetail
	f := map[string]string{}
	if err := scanXML(data, MaxReplySize, "ARECF", arecfFields, f); err != nil {
		return nil, err
	}
	var v validation
	version(&v, "ARECF.Version", f[d+"Version"])
	a := &ARECF{
		RNCEmisor:    f[d+"RNCEmisor"],
		RNCComprador: f[d+"RNCComprador"],
		ENCF:         f[d+"eNCF"],
		Estado:       ReceiptState(integer(&v, "ARECF.Estado", f[d+"Estado"])),
	}
	if s := f[d+"CodigoMotivoNoRecibido"]; s != "" {
		a.CodigoMotivoNoRecibido = NotReceivedReason(integer(&v, "ARECF.CodigoMotivoNoRecibido", s))
		if a.CodigoMotivoNoRecibido == 0 {
			v.add("ARECF.CodigoMotivoNoRecibido", "Must be 1, 2, 3 or 4.")
		}
	}
	if t, ok := parseDGIIDateTime(f[d+"FechaHoraAcuseRecibo"]); ok {
		a.At = t
	} else {
		v.add("ARECF.FechaHoraAcuseRecibo", "Must be a date and time dd-MM-yyyy HH:mm:ss.")
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := a.validate(); err != nil {
		return nil, err
	}
	return a, nil
}

func prefixed(prefix string, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// The elements the readers of replies read, below their detail group.
const (
	acecfDetail = "DetalleAprobacionComercial/"
	arecfDetail = "DetalleAcusedeRecibo/"
)

var (
	acecfFields = newFieldSet(prefixed(acecfDetail, "Version", "RNCEmisor", "eNCF", "FechaEmision", "MontoTotal", "RNCComprador", "Estado", "DetalleMotivoRechazo", "FechaHoraAprobacionComercial")...)
	arecfFields = newFieldSet(prefixed(arecfDetail, "Version", "RNCEmisor", "RNCComprador", "eNCF", "Estado", "CodigoMotivoNoRecibido", "FechaHoraAcuseRecibo")...)
)

func version(v *validation, path, s string) {
	if s != "1.0" {
		v.add(path, "Must be 1.0.")
	}
}

// integer parses a small non-negative integer (DGII's codes), adding a
// detail and returning -1 when s is not one.
func integer(v *validation, path, s string) int {
	if s == "" || len(s) > 2 || strings.Trim(s, "0123456789") != "" {
		v.add(path, "Required: a code of one or two digits.")
		return -1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// scanXML reads data, whose root element must be root (without namespace),
// and stores in f the trimmed text of each element of fields. It rejects documents over max bytes,
// over xmlchar's limits (attributes, namespace declarations), DOCTYPEs and
// other directives, encodings other than UTF-8, undefined entities,
// nesting deeper than maxXMLDepth, a wanted element that repeats or holds
// elements, and anything after the root. A UTF-8 byte order mark is
// skipped.
func scanXML(data []byte, max int, root string, fields fieldSet, f map[string]string) error {
	if len(data) > max {
		return tooLarge(root, len(data), max)
	}
	bad := invalidXML(root)
	return readTokens(data, bad, newFieldsReader(root, fields, f, bad))[0]
}

// fieldSet is what a fieldsReader reads: the paths of the elements wanted
// ("/"-joined local names below the root), true, and the paths above
// them, false.
type fieldSet map[string]bool

// newFieldSet returns the set of paths.
func newFieldSet(paths ...string) fieldSet {
	s := fieldSet{}
	for _, p := range paths {
		for i := range len(p) {
			if p[i] == '/' {
				if _, ok := s[p[:i]]; !ok {
					s[p[:i]] = false
				}
			}
		}
		s[p] = true
	}
	return s
}

// tooLarge is the PAYLOAD_TOO_LARGE of a root's reader.
func tooLarge(root string, size, max int) error {
	return sello.Errorf(sello.CodePayloadTooLarge, "The %s XML has %d bytes; at most %d are accepted.", root, size, max)
}

// fieldsReader is scanXML's reader.
type fieldsReader struct {
	root    string
	wanted  map[string]bool // the paths, and the paths above them (false)
	f       map[string]string
	bad     func(format string, args ...any) error
	stack   []fieldsFrame
	current string // the wanted path being read, or ""
	text    []byte
	done    bool
}

// fieldsFrame is an open element: its path below the root, or "" when no
// wanted path is under it (its children are not looked at).
type fieldsFrame struct {
	path string
	live bool
}

func newFieldsReader(root string, fields fieldSet, f map[string]string, bad func(string, ...any) error) *fieldsReader {
	return &fieldsReader{root: root, wanted: fields, f: f, bad: bad}
}

func (r *fieldsReader) reset() {
	clear(r.f)
	r.stack, r.current, r.text, r.done = r.stack[:0], "", r.text[:0], false
}

func (r *fieldsReader) token(t *xmlToken) error {
	switch t.kind {
	case tokStart:
		if r.done {
			return r.bad("content after the root element")
		}
		if len(r.stack) == 0 && (t.name.Local != r.root || t.name.Space != "") {
			return r.bad("the root element must be <%s> without namespace prefix, not <%s>", r.root, qualified(t.name))
		}
		if len(r.stack) >= maxXMLDepth {
			return r.bad("elements nest deeper than %d", maxXMLDepth)
		}
		if r.current != "" {
			return r.bad("<%s> must hold text, not elements", strings.ReplaceAll(r.current, "/", "."))
		}
		var fr fieldsFrame
		switch {
		case len(r.stack) == 0:
			fr.live = true
		case r.stack[len(r.stack)-1].live:
			fr.path = t.name.Local
			if parent := r.stack[len(r.stack)-1].path; parent != "" {
				fr.path = parent + "/" + t.name.Local
			}
			want, ok := r.wanted[fr.path]
			fr.live = ok && !want
			if want {
				if _, seen := r.f[fr.path]; seen {
					return r.bad("<%s> appears more than once", strings.ReplaceAll(fr.path, "/", "."))
				}
				r.current, r.text = fr.path, r.text[:0]
			}
		}
		r.stack = append(r.stack, fr)
	case tokText:
		if len(r.stack) == 0 && len(bytes.TrimSpace(t.text)) > 0 {
			return r.bad("text outside the root element")
		}
		if r.current != "" {
			r.text = append(r.text, t.text...)
		}
	case tokEnd:
		if r.current != "" {
			r.f[r.current] = strings.TrimSpace(string(r.text))
			r.current = ""
		}
		r.stack = r.stack[:len(r.stack)-1]
		r.done = len(r.stack) == 0
	}
	return nil
}

func (r *fieldsReader) end() error {
	if !r.done {
		return r.bad("no <%s> element", r.root)
	}
	return nil
}

// invalidXML returns the INVALID_REQUEST maker of a root's reader.
func invalidXML(root string) func(format string, args ...any) error {
	return func(format string, args ...any) error {
		return sello.Errorf(sello.CodeInvalidRequest, "The %s XML is not valid: %s.", root, sello.Textf(format, args...))
	}
}

func qualified(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

var (
	looseDate     = regexp.MustCompile(`^([0-9]{1,2})-([0-9]{1,2})-([0-9]{4})$`)
	looseDateTime = regexp.MustCompile(`^([0-9]{1,2})-([0-9]{1,2})-([0-9]{4}) ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})$`)
)

// parseLooseDate parses dd-MM-yyyy, allowing one-digit days and months as
// DGII's schemas do.
func parseLooseDate(s string) (sello.Date, bool) {
	m := looseDate.FindStringSubmatch(s)
	if m == nil {
		return sello.Date{}, false
	}
	t, ok := civil(m[1:4], []string{"0", "0", "0"})
	return sello.DateOf(t), ok
}

// parseDGIIDateTime parses dd-MM-yyyy HH:mm:ss in GMT-4, allowing one-digit
// fields as DGII's schemas do.
func parseDGIIDateTime(s string) (time.Time, bool) {
	m := looseDateTime.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	return civil(m[1:4], m[4:7])
}

// civil builds the time of day/month/year and hour/minute/second in GMT-4,
// reporting false for values out of range (31-02, 24:00…) or years outside
// 1900–2099.
func civil(date, clock []string) (time.Time, bool) {
	var n [6]int
	for i, s := range append(slices.Clone(date), clock...) {
		n[i], _ = strconv.Atoi(s)
	}
	day, month, year, h, m, sec := n[0], n[1], n[2], n[3], n[4], n[5]
	if year < 1900 || year > 2099 || h > 23 || m > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, h, m, sec, 0, sello.DRZone)
	if t.Day() != day || int(t.Month()) != month {
		return time.Time{}, false
	}
	return t, true
}
