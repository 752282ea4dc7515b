package dgii

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jsonstrict"
	"github.com/sello-do/sello/internal/xmlchar"
)

// DGII answers in JSON or XML (by Accept, and not always as asked), with
// keys in varying case ("encf", "eNCF"), codes as numbers or strings, lists
// that are sometimes a single object, and dates in several formats. The
// parsers below decode any body into one schema-less form first — maps with
// lower-case keys, lists, strings, json.Number, bool and nil — and read
// fields from it leniently.

// maxDepth bounds the nesting of an XML body; DGII's bodies are 3 deep.
const maxDepth = 64

// errNotStructured is returned for an empty body.
var errNotStructured = errors.New("empty body")

// decodeBody decodes a JSON or XML body. An XML body becomes its root
// element's content.
func decodeBody(b []byte) (any, error) {
	b = xmlchar.TrimBOM(b) // JSON or XML: .NET writes one before either
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return nil, errNotStructured
	}
	if t[0] == '<' {
		_, v, err := decodeXML(t)
		return v, err
	}
	if v, ok := jsonstrict.Decode(t); ok {
		return lowerKeys(v), nil
	}
	// A body Decode does not read (trailing data, a duplicate key, …):
	// encoding/json's reading of it, as before.
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	return lowerKeys(v), nil
}

// lowerKeys lower-cases every object key in v, recursively.
func lowerKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[strings.ToLower(k)] = lowerKeys(x)
		}
		return m
	case []any:
		for i := range v {
			v[i] = lowerKeys(v[i])
		}
	}
	return v
}

// xmlElem is an element being decoded.
type xmlElem struct {
	name     string
	nil      bool
	text     strings.Builder
	children map[string]any
}

// value is the element's decoded form: its children as a map, or its text.
func (e *xmlElem) value() any {
	if e.nil {
		return nil
	}
	if e.children != nil {
		return e.children
	}
	return strings.TrimSpace(e.text.String())
}

// decodeXML decodes an XML document into its root element's local name and
// content. It refuses DOCTYPE declarations and more than maxDepth levels.
func decodeXML(b []byte) (root string, v any, err error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		// DGII's bodies are UTF-8 even when they say "utf-8" in another
		// spelling; anything else is read as is.
		return r, nil
	}
	var stack []*xmlElem
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			return "", nil, fmt.Errorf("decode xml: %w", err)
		}
		switch tok := tok.(type) {
		case xml.Directive:
			return "", nil, errors.New("decode xml: DOCTYPE and other directives are not accepted")
		case xml.StartElement:
			if len(stack) == 0 && root != "" {
				return "", nil, errors.New("decode xml: more than one root element")
			}
			if len(stack) >= maxDepth {
				return "", nil, errors.New("decode xml: too deeply nested")
			}
			e := &xmlElem{name: strings.ToLower(tok.Name.Local)}
			for _, a := range tok.Attr {
				if a.Name.Local == "nil" && a.Value == "true" {
					e.nil = true
				}
			}
			if len(stack) == 0 {
				root = tok.Name.Local
			}
			stack = append(stack, e)
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(tok)
			} else if len(bytes.TrimSpace(tok)) > 0 {
				return "", nil, errors.New("decode xml: text outside the root element")
			}
		case xml.EndElement:
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				v = e.value()
				continue
			}
			p := stack[len(stack)-1]
			if p.children == nil {
				p.children = map[string]any{}
			}
			switch prev := p.children[e.name].(type) {
			case nil:
				if _, ok := p.children[e.name]; ok {
					p.children[e.name] = []any{nil, e.value()}
				} else {
					p.children[e.name] = e.value()
				}
			case []any:
				p.children[e.name] = append(prev, e.value())
			default:
				p.children[e.name] = []any{prev, e.value()}
			}
		}
	}
	if root == "" {
		return "", nil, errors.New("decode xml: no root element")
	}
	return root, v, nil
}

// field returns the first of names present in the object v (names are
// lower-case), or nil.
func field(v any, names ...string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, n := range names {
		if x, ok := m[n]; ok && x != nil {
			return x
		}
	}
	return nil
}

// str returns a scalar as text: strings as they are, numbers as written.
func str(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// integer reads a whole number written as a number or a string ("1",
// "1.0").
func integer(v any) (int, bool) {
	s := str(v)
	if s == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == float64(int(f)) && f > -1e9 && f < 1e9 {
		return int(f), true
	}
	return 0, false
}

// boolean reads true/false written as a bool or a string ("true", "1").
func boolean(v any) *bool {
	var b bool
	switch strings.ToLower(str(v)) {
	case "true", "1", "si", "sí":
		b = true
	case "false", "0", "no":
	default:
		return nil
	}
	return &b
}

// list returns v as a list: a list as it is, nil as empty, anything else
// as a list of one.
func list(v any) []any {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		return v
	}
	return []any{v}
}

// records finds the objects in v for which isRecord holds, whether v is
// one such object, a list of them, or a wrapper of one key around either
// (XML's <ArrayOfX><X>…</X></ArrayOfX>).
func records(v any, isRecord func(map[string]any) bool) []map[string]any {
	var out []map[string]any
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > maxDepth {
			return
		}
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(x, depth+1)
			}
		case map[string]any:
			if isRecord(v) {
				out = append(out, v)
			} else if len(v) == 1 {
				for _, x := range v {
					walk(x, depth+1)
				}
			}
		}
	}
	walk(v, 0)
	return out
}

// messages reads DGII's validation messages: a list (or one) of
// {"codigo","valor"} objects or of plain strings. Empty placeholders such
// as {"valor":"","codigo":0}, which DGII sends with acceptances, are
// dropped.
func messages(v any) []sello.DGIIMessage {
	var out []sello.DGIIMessage
	for _, x := range list(v) {
		var m sello.DGIIMessage
		if s, ok := x.(string); ok {
			m.Valor = strings.TrimSpace(s)
		} else {
			if n, ok := integer(field(x, "codigo", "code")); ok {
				m.Codigo = &n
			}
			m.Valor = str(field(x, "valor", "mensaje", "message"))
		}
		if m.Valor != "" || (m.Codigo != nil && *m.Codigo != 0) {
			out = append(out, m)
		}
	}
	return out
}

// texts reads a list (or one) of strings, or of objects with a message.
func texts(v any) []string {
	var out []string
	for _, x := range list(v) {
		s := str(x)
		if s == "" {
			s = str(field(x, "valor", "mensaje", "message"))
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// timeLayouts are the date formats DGII has been seen to use. Layouts
// without a zone are read in zone.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.9999999",
	"2006-01-02 15:04:05.9999999",
	"1/2/2006 3:04:05 PM", // en-US, seen in consultaresultado
	"1/2/2006 15:04:05",
	"02-01-2006 15:04:05", // DGII's own format in e-CF fields
	"02-01-2006",
	"2006-01-02",
}

// parseTime parses one of DGII's date formats; layouts without a zone are
// read in zone. It returns the zero time for "" or an unknown format.
func parseTime(s string, zone *time.Location) time.Time {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}
	}
	for _, l := range timeLayouts {
		if !mayMatch(l, s) {
			continue
		}
		if t, err := time.ParseInLocation(l, s, zone); err == nil {
			return t
		}
	}
	return time.Time{}
}

// mayMatch reports false when s cannot be in layout, one of timeLayouts,
// by the separators every such time has at fixed places: a failed
// time.Parse costs an error built with copies of both strings, and DGII's
// en-US dates came after three of them (issue 23).
func mayMatch(layout, s string) bool {
	switch {
	case strings.HasPrefix(layout, "2006-"): // a four-digit year first
		return len(s) > 4 && s[4] == '-'
	case strings.HasPrefix(layout, "02-"): // a two-digit day first
		return len(s) > 2 && s[2] == '-'
	case strings.HasPrefix(layout, "1/2/"):
		return strings.IndexByte(s, '/') >= 0
	}
	return true
}

// codigoFromEstado maps an estado text to its codigo, or -1.
func codigoFromEstado(estado string) int {
	s := strings.ToLower(estado)
	switch {
	case strings.Contains(s, "condicional"):
		return CodigoAceptadoCondicional
	case strings.Contains(s, "rechaz"):
		return CodigoRechazado
	case strings.Contains(s, "proceso"):
		return CodigoEnProceso
	case strings.Contains(s, "no encontrad"):
		return CodigoNoEncontrado
	case strings.Contains(s, "aceptad"):
		return CodigoAceptado
	}
	return -1
}

// parseToken reads validarsemilla's answer.
func parseToken(b []byte) (token string, expira, expedido time.Time, err error) {
	v, err := decodeBody(b)
	if err != nil {
		return "", time.Time{}, time.Time{}, err
	}
	token = str(field(v, "token"))
	if token == "" {
		return "", time.Time{}, time.Time{}, errors.New("no token in the answer")
	}
	// DGII's token times are UTC ("formato de fecha universal").
	expira = parseTime(str(field(v, "expira")), time.UTC)
	expedido = parseTime(str(field(v, "expedido")), time.UTC)
	return token, expira, expedido, nil
}

// parseRecepcion reads recepción's answer {"trackId","error","mensaje"}.
func parseRecepcion(b []byte) (trackID string, e *Error, err error) {
	v, err := decodeBody(b)
	if err != nil {
		return "", nil, err
	}
	trackID = str(field(v, "trackid"))
	if trackID == "" {
		e = &Error{Codigo: str(field(v, "codigo", "error")), Mensajes: texts(field(v, "mensaje", "mensajes"))}
	}
	return trackID, e, nil
}

// parseResult reads consultaresultado's and recepción FC's answer.
func parseResult(b []byte) (*Result, error) {
	v, err := decodeBody(b)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		if rs := records(v, isResult); len(rs) > 0 {
			v = rs[0]
		} else {
			return nil, errors.New("the answer is not an object")
		}
	}
	r := &Result{
		TrackID:            str(field(v, "trackid")),
		Estado:             str(field(v, "estado")),
		RNC:                str(field(v, "rnc", "rncemisor")),
		ENCF:               str(field(v, "encf", "ncfelectronico")),
		SecuenciaUtilizada: boolean(field(v, "secuenciautilizada")),
		FechaRecepcionText: str(field(v, "fecharecepcion")),
		Mensajes:           messages(field(v, "mensajes", "mensaje")),
	}
	r.FechaRecepcion = parseTime(r.FechaRecepcionText, sello.DRZone)
	codigo, ok := integer(field(v, "codigo"))
	if !ok {
		if codigo = codigoFromEstado(r.Estado); codigo < 0 {
			return nil, errors.New("the answer has neither a codigo nor a known estado")
		}
	}
	r.Codigo = codigo
	return r, nil
}

func isResult(m map[string]any) bool {
	return field(m, "codigo", "estado") != nil
}

// parseTrackIDs reads consultatrackids' answer: a list (or one) of
// {"trackId","estado","fechaRecepcion"}. Entries without a trackId (DGII's
// "TrackId no encontrado.") are left out.
func parseTrackIDs(b []byte) ([]TrackIDEntry, error) {
	v, err := decodeBody(b)
	if err != nil {
		return nil, err
	}
	out := []TrackIDEntry{}
	for _, m := range records(v, func(m map[string]any) bool { return field(m, "trackid", "estado") != nil }) {
		e := TrackIDEntry{
			TrackID:            str(field(m, "trackid")),
			Estado:             str(field(m, "estado")),
			FechaRecepcionText: str(field(m, "fecharecepcion")),
		}
		if e.TrackID == "" {
			continue
		}
		e.Codigo = codigoFromEstado(e.Estado)
		e.FechaRecepcion = parseTime(e.FechaRecepcionText, sello.DRZone)
		out = append(out, e)
	}
	return out, nil
}

// parseEstado reads consultaestado's answer.
func parseEstado(b []byte) (*Estado, error) {
	v, err := decodeBody(b)
	if err != nil {
		return nil, err
	}
	if rs := records(v, isResult); len(rs) > 0 {
		v = rs[0]
	} else {
		return nil, errors.New("the answer has neither a codigo nor an estado")
	}
	e := &Estado{
		Estado:          str(field(v, "estado")),
		RNCEmisor:       str(field(v, "rncemisor", "rnc")),
		ENCF:            str(field(v, "ncfelectronico", "encf")),
		MontoTotal:      str(field(v, "montototal")),
		TotalITBIS:      str(field(v, "totalitbis")),
		FechaEmision:    str(field(v, "fechaemision")),
		FechaFirma:      str(field(v, "fechafirma")),
		RNCComprador:    str(field(v, "rnccomprador")),
		CodigoSeguridad: str(field(v, "codigoseguridad", "cod_seguridad_ecf")),
		IDExtranjero:    str(field(v, "idextranjero")),
	}
	codigo, ok := integer(field(v, "codigo"))
	if !ok {
		if codigo = codigoFromEstado(e.Estado); codigo < 0 {
			return nil, errors.New("the answer has neither a codigo nor a known estado")
		}
	}
	e.Codigo = codigo
	return e, nil
}

// parseDirectory reads the directory's answer: a list of entries, or, as
// DGII sometimes answers, a single entry.
func parseDirectory(b []byte) ([]DirectoryEntry, error) {
	v, err := decodeBody(b)
	if err != nil {
		return nil, err
	}
	out := []DirectoryEntry{}
	for _, m := range records(v, func(m map[string]any) bool {
		return field(m, "rnc", "urlrecepcion", "urlaceptacion") != nil
	}) {
		out = append(out, DirectoryEntry{
			Nombre:        str(field(m, "nombre")),
			RNC:           str(field(m, "rnc")),
			URLRecepcion:  str(field(m, "urlrecepcion")),
			URLAceptacion: str(field(m, "urlaceptacion")),
			URLOpcional:   str(field(m, "urlopcional")),
		})
	}
	return out, nil
}

// parseApproval reads aprobación comercial's answer.
func parseApproval(b []byte) (*ApprovalResult, error) {
	v, err := decodeBody(b)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("the answer is not an object")
	}
	r := &ApprovalResult{
		Estado:   str(field(v, "estado")),
		Mensajes: texts(field(v, "mensaje", "mensajes")),
	}
	codigo, ok := integer(field(v, "codigo"))
	if !ok {
		s := strings.ToLower(r.Estado)
		switch {
		case strings.Contains(s, "rechazad"):
			codigo = ApprovalRechazada
		case strings.Contains(s, "aprobad"):
			codigo = ApprovalAprobada
		default:
			return nil, errors.New("the answer has neither a codigo nor a known estado")
		}
	}
	r.Codigo = codigo
	return r, nil
}

// parseVoid reads anulación's answer.
func parseVoid(b []byte) (*VoidResult, error) {
	v, err := decodeBody(b)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("the answer is not an object")
	}
	return &VoidResult{
		RNC:      str(field(v, "rnc")),
		Codigo:   str(field(v, "codigo")),
		Nombre:   str(field(v, "nombre")),
		Mensajes: texts(field(v, "mensajes", "mensaje")),
	}, nil
}

// parseError builds the *Error for a non-success answer, with whatever
// codigo and messages its body carries: DGII's own shapes, or ASP.NET's
// problem details ({"title","errors":{field:[…]}}).
func parseError(status int, b []byte) *Error {
	e := &Error{Status: status, Body: string(b[:min(len(b), maxErrorBody)])}
	v, err := decodeBody(b)
	if err != nil {
		if s := strings.TrimSpace(e.Body); s != "" && len(s) <= 500 && !strings.Contains(s, "<") {
			e.Mensajes = []string{s}
		}
		return e
	}
	if rs := records(v, func(m map[string]any) bool {
		return field(m, "codigo", "error", "mensaje", "mensajes", "message", "title", "estado") != nil
	}); len(rs) > 0 {
		v = rs[0]
	}
	e.Codigo = str(field(v, "codigo", "code"))
	if e.Codigo == "" {
		if s := str(field(v, "error")); s != "" && len(s) <= 16 && !strings.Contains(s, " ") {
			e.Codigo = s
		} else if s != "" {
			e.Mensajes = append(e.Mensajes, s)
		}
	}
	for _, m := range messages(field(v, "mensajes", "mensaje", "message", "title")) {
		if m.Valor != "" {
			e.Mensajes = append(e.Mensajes, m.Valor)
		}
	}
	if errs, ok := field(v, "errors").(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(errs)) {
			e.Mensajes = append(e.Mensajes, texts(errs[k])...)
		}
	}
	if len(e.Mensajes) == 0 {
		if s := str(field(v, "estado")); s != "" {
			e.Mensajes = []string{s}
		}
	}
	return e
}
