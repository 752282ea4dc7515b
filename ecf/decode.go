package ecf

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jsonstrict"
	"github.com/sello-do/sello/internal/spell"
)

// Document is a decoded e-CF request: the JSON {"ECF": {...}}.
type Document struct {
	ECF ECF `json:"ECF"`
}

// Decode parses a request body. Malformed JSON (a syntax error, trailing data,
// an empty body, a value that is not an object) returns INVALID_JSON with the
// byte offset in the message. Well-formed JSON that does not fit the model
// (unknown field, wrong JSON type, missing root "ECF", empty string…) returns
// VALIDATION_FAILED listing every problem with its JSON path. Amounts and
// quantities are accepted as JSON numbers or strings and parsed exactly.
func Decode(body []byte) (*Document, error) {
	d, p, err := decode(body)
	if err != nil {
		return nil, err
	} else if err := p.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// decode maps body onto the model as far as it fits. It returns the
// document with every field that could be decoded set, the shape problems,
// and an error only when nothing usable could be decoded (INVALID_JSON) or
// a list is too long to decode at all (VALIDATION_FAILED).
func decode(body []byte) (*Document, *sello.Problems, error) {
	root, err := parseJSON(body)
	if err != nil {
		return nil, nil, err
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, nil, sello.Errorf(sello.CodeInvalidJSON, "The body must be a JSON object {\"ECF\":{…}}, not %s (at offset 0).", jsonKind(root))
	}
	d := &Document{}
	dec := &decoder{}
	ecf, ok := obj["ECF"]
	if !ok || ecf == nil {
		dec.add("ECF", "Required: the body must be {\"ECF\":{…}}.")
	}
	for _, k := range sortedKeys(obj) {
		if k != "ECF" {
			dec.addf(keyPath(k), "%s The body must be {\"ECF\":{…}} with nothing beside ECF.", dec.unknownField(k, []string{"ECF"}))
		}
	}
	if ecf != nil {
		dec.value("ECF", ecf, reflect.ValueOf(&d.ECF).Elem())
	}
	return d, &dec.problems, nil
}

// parseJSON decodes body into generic values, numbers kept as json.Number.
// Invalid UTF-8, lone surrogate escapes and duplicate keys, which
// encoding/json would let through changed or dropped, are INVALID_JSON.
func parseJSON(body []byte) (any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, sello.Errorf(sello.CodeInvalidJSON, "The body is empty (offset 0): send a JSON object {\"ECF\":{…}}.")
	}
	switch err := jsonstrict.Check(body); {
	case err == nil:
		if err := checkListLengths(body); err != nil {
			return nil, err
		}
		if v, ok := jsonstrict.Decode(body); ok {
			return v, nil
		}
	case !jsonstrict.IsSyntax(err):
		return nil, sello.Errorf(sello.CodeInvalidJSON, "Invalid JSON: %v.", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(err, dec.InputOffset(), len(body))
	}
	// Anything but whitespace after the value is trailing data.
	off := dec.InputOffset()
	if rest := bytes.TrimLeft(body[off:], " \t\r\n"); len(rest) > 0 {
		return nil, sello.Errorf(sello.CodeInvalidJSON, "Invalid JSON: unexpected data after the top-level value at offset %d.", int(off)+len(body[off:])-len(rest))
	}
	return v, nil
}

func syntaxError(err error, off int64, n int) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return sello.Errorf(sello.CodeInvalidJSON, "Invalid JSON at offset %d: %s.", se.Offset, se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return sello.Errorf(sello.CodeInvalidJSON, "Invalid JSON: unexpected end of input at offset %d.", n)
	}
	return sello.Errorf(sello.CodeInvalidJSON, "Invalid JSON at offset %d: %s.", off, err.Error())
}

func jsonKind(v any) sello.Text {
	switch v.(type) {
	case nil:
		return sello.Textf("null")
	case map[string]any:
		return sello.Textf("an object")
	case []any:
		return sello.Textf("an array")
	case string:
		return sello.Textf("a string")
	case json.Number:
		return sello.Textf("a number")
	case bool:
		return sello.Textf("a boolean")
	}
	return sello.Textf("an unknown value")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decoder maps generic JSON values onto the model, collecting every problem.
type decoder struct {
	problems sello.Problems
	// path is the value being decoded, spelled out only when a problem is
	// reported there: most documents have none, and building every
	// field's path cost a string each (issue 23).
	path []pathSeg
}

// pathSeg is one step of a decoder's path: a member's name (index -1,
// since a name may be ""), or an array element's index.
type pathSeg struct {
	key   string
	index int
}

// at returns the path of the value being decoded, as the problems show
// it: ECF.A.B[2].C.
func (d *decoder) at() string {
	n := 0
	for _, s := range d.path {
		n += len(s.key) + 1
		if s.index >= 0 {
			n += 6
		}
	}
	b := make([]byte, 0, n)
	for i, s := range d.path {
		switch {
		case s.index >= 0:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		case i > 0:
			b = append(b, '.')
			fallthrough
		default:
			b = append(b, s.key...)
		}
	}
	return string(b)
}

func (d *decoder) add(path, msg string) { d.problems.Add(path, msg) }

func (d *decoder) addf(path, format string, args ...any) { d.problems.Addf(path, format, args...) }

func (d *decoder) addText(path string, t sello.Text) { d.problems.AddText(path, t) }

// unknownField is the message of an unknown field name: it suggests the
// known name closest to it (spell.Closest), saying so when only the case
// differs. Only the problems kept get a suggestion, so a body of many
// unknown names costs no more than MaxDetails lookups.
func (d *decoder) unknownField(name string, known []string) sello.Text {
	if d.problems.Len() >= sello.MaxDetails {
		return sello.Textf("Unknown field.")
	}
	switch s := spell.Closest(name, known); {
	case s == "":
		return sello.Textf("Unknown field.")
	case strings.EqualFold(s, name):
		return sello.Textf("Unknown field: did you mean %q? Names are case-sensitive, as in DGII's XML.", s)
	default:
		return sello.Textf("Unknown field: did you mean %q?", s)
	}
}

var (
	decimalType = reflect.TypeOf(Decimal{})
	codeType    = reflect.TypeOf(Code(""))
	rawType     = reflect.TypeOf(json.RawMessage(nil))
)

// value decodes v into dst (settable), reporting problems under path.
func (d *decoder) value(path string, v any, dst reflect.Value) {
	d.path = append(d.path[:0], pathSeg{key: path, index: -1})
	d.decodeValue(v, dst)
}

// decodeValue decodes v into dst (settable), reporting problems under
// d.path.
func (d *decoder) decodeValue(v any, dst reflect.Value) {
	if v == nil { // null is the same as absent
		return
	}
	t := dst.Type()
	switch {
	case t == rawType:
		b, _ := json.Marshal(v)
		dst.SetBytes(b)
	case t.Kind() == reflect.Pointer && t.Elem() == decimalType:
		var s string
		switch x := v.(type) {
		case json.Number:
			s = string(x)
		case string:
			s = x
			if s == "" {
				d.add(d.at(), "Must not be empty: DGII rejects empty elements; omit the field instead.")
				return
			}
		default:
			d.addf(d.at(), "Must be a number or a string holding a number, not %s.", jsonKind(v))
			return
		}
		dec, err := ParseDecimal(s)
		if err != nil {
			d.addf(d.at(), "Invalid number: %s.", err.Error())
			return
		}
		dst.Set(reflect.ValueOf(dec))
	case t == codeType:
		switch x := v.(type) {
		case json.Number:
			dst.SetString(string(x))
		case string:
			if x == "" {
				d.add(d.at(), "Must not be empty: DGII rejects empty elements; omit the field instead.")
				return
			}
			dst.SetString(x)
		default:
			d.addf(d.at(), "Must be a string or a number, not %s.", jsonKind(v))
		}
	case t.Kind() == reflect.String:
		s, ok := v.(string)
		if !ok {
			d.addf(d.at(), "Must be a string, not %s.", jsonKind(v))
			return
		}
		if s == "" {
			d.add(d.at(), "Must not be empty: DGII rejects empty elements; omit the field instead.")
			return
		}
		dst.SetString(s)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		if _, ok := v.(map[string]any); !ok {
			d.addf(d.at(), "Must be an object, not %s.", jsonKind(v))
			return
		}
		p := reflect.New(t.Elem())
		d.object(v.(map[string]any), p.Elem())
		dst.Set(p)
	case t.Kind() == reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			d.addf(d.at(), "Must be an object, not %s.", jsonKind(v))
			return
		}
		d.object(m, dst)
	case t.Kind() == reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			d.addf(d.at(), "Must be an array, not %s.", jsonKind(v))
			return
		}
		s := reflect.MakeSlice(t, len(arr), len(arr))
		for i, e := range arr {
			d.path = append(d.path, pathSeg{index: i})
			if e == nil {
				d.add(d.at(), "Must not be null.")
			} else {
				d.decodeValue(e, s.Index(i))
			}
			d.path = d.path[:len(d.path)-1]
		}
		dst.Set(s)
	default:
		d.add(d.at(), "Unsupported field.")
	}
}

// object decodes the members of m into the struct dst.
//
// The members are decoded in the order of their names, so that problems
// come in that order. While no problem has been found they are first
// decoded in the map's order, which needs no sorting: if that finds one,
// the problems are dropped and the members decoded again in order (each
// value decodes the same twice), so only a refused document pays for
// the sort (issue 23).
func (d *decoder) object(m map[string]any, dst reflect.Value) {
	fields := jsonFields(dst.Type())
	if d.problems.Len() == 0 {
		for k, v := range m {
			d.member(fields, k, v, dst)
		}
		if d.problems.Len() == 0 {
			return
		}
		d.problems = sello.Problems{}
	}
	for _, k := range sortedKeys(m) {
		d.member(fields, k, m[k], dst)
	}
}

// member decodes the member k of an object into the struct dst, whose
// jsonFields are fields.
func (d *decoder) member(fields map[string]int, k string, v any, dst reflect.Value) {
	i, ok := fields[k]
	d.path = append(d.path, pathSeg{key: k, index: -1})
	if !ok {
		d.addText(d.at(), d.unknownField(k, fieldNames(dst.Type())))
	} else {
		d.decodeValue(v, dst.Field(i))
	}
	d.path = d.path[:len(d.path)-1]
}

// jsonFields maps the JSON names of struct t's fields to their indexes,
// computed once per type (the map is shared: read it only).
func jsonFields(t reflect.Type) map[string]int {
	if m, ok := jsonFieldsByType.Load(t); ok {
		return m.(map[string]int)
	}
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		m[jsonName(t.Field(i))] = i
	}
	jsonFieldsByType.Store(t, m)
	return m
}

// fieldNames lists the JSON names of struct t's fields in their order.
func fieldNames(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = jsonName(t.Field(i))
	}
	return names
}

// jsonFieldsByType caches jsonFields.
var jsonFieldsByType sync.Map

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// keyPath spells an unknown top-level key as a path: quoted when it is
// empty, so that every detail has a path.
func keyPath(k string) string {
	if k == "" {
		return strconv.Quote(k)
	}
	return k
}

// MaxListLen is the most elements a JSON array of a document may have: the
// largest list DGII allows, the 10,000 items of types 33 and 34.
const MaxListLen = 10_000

// checkListLengths refuses a well-formed body with an array of more than
// MaxListLen elements before anything is built from it: a 2 MiB body holds
// ~700,000 empty objects, each of which would cost a map and its problems.
// It returns VALIDATION_FAILED naming the first such array, or nil.
func checkListLengths(body []byte) error {
	type frame struct {
		array bool
		n     int    // commas seen in an array: the index of its element
		key   []byte // the current member's name in an object, raw
	}
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] != '{' {
		if b[0] == '[' { // not worth decoding: say what decode would say
			return sello.Errorf(sello.CodeInvalidJSON, "The body must be a JSON object {\"ECF\":{…}}, not an array (at offset 0).")
		}
		return nil
	}
	var stack []frame
	var last []byte // the last string read, raw
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			j := i + 1
			for ; j < len(body) && body[j] != '"'; j++ {
				if body[j] == '\\' {
					j++
				}
			}
			last, i = body[i:j+1], j
		case '{':
			stack = append(stack, frame{})
		case '[':
			stack = append(stack, frame{array: true})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ':':
			stack[len(stack)-1].key = last
		case ',':
			top := &stack[len(stack)-1]
			if !top.array {
				continue
			}
			if top.n++; top.n < MaxListLen {
				continue
			}
			var path strings.Builder
			for _, f := range stack[:len(stack)-1] {
				if f.array {
					path.WriteString("[" + strconv.Itoa(f.n) + "]")
				} else {
					if path.Len() > 0 {
						path.WriteByte('.')
					}
					var k string
					json.Unmarshal(f.key, &k)
					path.WriteString(keyPath(k))
				}
			}
			return sello.ValidationErrorf(path.String(), "At most %d elements are allowed in a list (DGII's largest, the items of types 33 and 34); got more. Nothing else was checked.", MaxListLen)
		}
	}
	return nil
}
