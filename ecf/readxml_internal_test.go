package ecf

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sello-do/sello"
)

// The reader of e-CFs as it was before it decoded into the model as it
// read: it built the JSON-shaped tree the decoder takes, then decoded it.
// TestReadXMLMatchesTree and FuzzReadXMLMatchesTree hold ReadXML to it.

type mapFrame struct {
	path      string
	name      string
	kind      xmlKind
	plan      *xmlPlan
	obj       map[string]any
	text      []byte
	skip      bool
	last      int
	bad, full bool
}

type mapTreeReader struct {
	bad      func(string, ...any) error
	p        sello.Problems
	stack    []*mapFrame
	root     map[string]any
	elements int
}

func (r *mapTreeReader) reset() { *r = mapTreeReader{bad: r.bad} }

func (r *mapTreeReader) end() error {
	if r.root == nil {
		return r.bad("no <ECF> element")
	}
	return nil
}

func mapListOf(obj map[string]any, name string) []any {
	l, _ := obj[name].([]any)
	return l
}

func (r *mapTreeReader) token(t *xmlToken) error {
	switch t.kind {
	case tokStart:
		r.elements++
		if err := startError(r.bad, t, len(r.stack), r.elements, r.root != nil); err != nil {
			return err
		}
		if len(r.stack) == 0 {
			if a := badAttribute(t.attrs, true); a != "" {
				r.p.Add("ECF", attributesMessage(a))
			}
			r.stack = append(r.stack, &mapFrame{path: "ECF", name: "ECF", kind: xGroup, plan: ecfPlan, obj: map[string]any{}, last: -1})
			return nil
		}
		r.stack = append(r.stack, mapChild(&r.p, r.stack[len(r.stack)-1], t))
	case tokText:
		if len(r.stack) == 0 {
			if len(bytes.TrimSpace(t.text)) > 0 {
				return r.bad("text outside the root element")
			}
			return nil
		}
		f := r.stack[len(r.stack)-1]
		switch {
		case f.skip:
		case f.plan == nil:
			f.text = append(f.text, t.text...)
		case !f.bad && len(bytes.TrimSpace(t.text)) > 0:
			r.p.Add(f.path, "Must hold elements, not text.")
			f.bad = true
		}
	case tokEnd:
		f := r.stack[len(r.stack)-1]
		r.stack = r.stack[:len(r.stack)-1]
		if len(r.stack) == 0 {
			r.root = f.obj
		} else if !f.skip {
			parent := r.stack[len(r.stack)-1]
			var v any = string(f.text)
			if f.plan != nil {
				v = f.obj
			}
			if f.kind == xGroupList || f.kind == xTextList {
				parent.obj[f.name] = append(mapListOf(parent.obj, f.name), v)
			} else {
				parent.obj[f.name] = v
			}
		}
	}
	return nil
}

func mapChild(p *sello.Problems, parent *mapFrame, t *xmlToken) *mapFrame {
	name := qualified(t.name)
	skip := &mapFrame{skip: true}
	switch {
	case parent.skip:
		return skip
	case parent.plan == nil:
		if !parent.bad {
			p.Add(parent.path, "Must hold text, not elements.")
			parent.bad = true
		}
		return skip
	case parent.name == "ECF" && t.name.Local == "Signature":
		if parent.last == len(parent.plan.fields) {
			p.Add("ECF.Signature", "Appears more than once: DGII's XSD has one signature.")
		}
		parent.last = len(parent.plan.fields)
		return skip
	}
	i, ok := parent.plan.byName[name]
	if !ok || t.name.Space != "" {
		p.Add(parent.path+"."+name, fmt.Sprintf("Unknown element: DGII's XSD has no <%s> in <%s>.", name, parent.name))
		return skip
	}
	f := &parent.plan.fields[i]
	list := f.kind == xGroupList || f.kind == xTextList
	path := parent.path + "." + f.name
	if list {
		n := len(mapListOf(parent.obj, f.name))
		if n >= MaxListLen {
			if !parent.full {
				p.Add(path, fmt.Sprintf("At most %d elements are allowed in a list (DGII's largest, the items of types 33 and 34); got more.", MaxListLen))
				parent.full = true
			}
			return skip
		}
		path += "[" + strconv.Itoa(n) + "]"
	}
	switch {
	case i < parent.last:
		after := "<Signature>"
		if parent.last < len(parent.plan.fields) {
			after = "<" + parent.plan.fields[parent.last].name + ">"
		}
		p.Add(path, fmt.Sprintf("Out of order: DGII's XSD puts <%s> before %s in <%s>.", f.name, after, parent.name))
		if _, seen := parent.obj[f.name]; seen {
			return skip
		}
	case i == parent.last && !list:
		p.Add(path, "Appears more than once: DGII's XSD allows it once.")
		return skip
	default:
		parent.last = i
	}
	if a := badAttribute(t.attrs, false); a != "" {
		p.Add(path, attributesMessage(a))
	}
	c := &mapFrame{path: path, name: f.name, kind: f.kind, last: -1}
	if f.plan != nil {
		c.plan, c.obj = f.plan, map[string]any{}
	}
	return c
}

// readXMLViaTree is ReadXML as it was: the tree, then the decoder.
func readXMLViaTree(data []byte) (*Document, error) {
	if len(data) > MaxECFSize {
		return nil, tooLarge("ECF", len(data), MaxECFSize)
	}
	r := &mapTreeReader{bad: invalidXML("ECF")}
	if err := readTokens(data, r.bad, r)[0]; err != nil {
		return nil, err
	}
	return readTree(r.root, r.p)
}

// assertReadsAsTree checks that ReadXML gives the old reader's document,
// or its error with the same details (in document order now, so compared
// sorted).
func assertReadsAsTree(t *testing.T, doc []byte) {
	t.Helper()
	got, err := ReadXML(doc)
	want, wantErr := readXMLViaTree(doc)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%q: ReadXML: %v; the tree reader: %v", doc, err, wantErr)
	}
	if err != nil {
		var e, we *sello.Error
		if !errors.As(err, &e) || !errors.As(wantErr, &we) {
			t.Fatalf("%q: errors %T %T", doc, err, wantErr)
		}
		key := func(d sello.ErrorDetail) string { return d.Path + "\x00" + d.Message }
		gd, wd := slices.Sorted(slices.Values(mapDetails(e.Details, key))), slices.Sorted(slices.Values(mapDetails(we.Details, key)))
		if e.Code != we.Code || e.Message != we.Message || e.Truncated != we.Truncated || !slices.Equal(gd, wd) {
			t.Fatalf("%q:\nReadXML: %v %q\ntree:    %v %q", doc, err, gd, wantErr, wd)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: ReadXML read\n%+v\nthe tree reader\n%+v", doc, got, want)
	}
}

func mapDetails(ds []sello.ErrorDetail, f func(sello.ErrorDetail) string) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = f(d)
	}
	return out
}

// breakages are changes to a golden e-CF the fuzzer starts from.
var breakages = [][2]string{
	{"<TipoPago>1</TipoPago>", "<TipoPago>1</TipoPago><TipoPago>2</TipoPago>"},
	{"<TipoPago>1</TipoPago>", "<TipoPago></TipoPago>"},
	{"<TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago>", "<TipoPago>1</TipoPago><TipoIngresos>01</TipoIngresos>"},
	{"<MontoItem>1000.00</MontoItem>", "<MontoItem>x</MontoItem>"},
	{"<MontoItem>1000.00</MontoItem>", "<MontoItem></MontoItem>"},
	{"<Emisor>", `<Emisor id="x">`},
	{"<Emisor>", "<Emisor>x"},
	{"</DetallesItems>", "<Item><NumeroLinea></NumeroLinea></Item></DetallesItems>"},
	{"<DetallesItems>", "<DetallesItems><Item></Item>"},
	{"<Version>1.0</Version>", "<Version>1.0</Version><Version>1.0</Version>"},
	{"<RNCEmisor>", "<Otro>x</Otro><RNCEmisor>"},
	{"</Encabezado>", "</Encabezado><Encabezado></Encabezado>"},
	{"<TelefonoEmisor>", "<TelefonoEmisor></TelefonoEmisor><TelefonoEmisor>"},
}

func TestReadXMLMatchesTree(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "E*.xml"))
	for _, name := range files {
		doc := mustReadFile(t, name)
		assertReadsAsTree(t, doc)
		for _, b := range breakages {
			if strings.Contains(string(doc), b[0]) {
				assertReadsAsTree(t, bytes.Replace(doc, []byte(b[0]), []byte(b[1]), -1))
			}
		}
	}
}

func FuzzReadXMLMatchesTree(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "E*.xml"))
	for _, name := range files {
		doc := mustReadFile(f, name)
		f.Add(doc)
		for _, b := range breakages {
			f.Add(bytes.Replace(doc, []byte(b[0]), []byte(b[1]), 1))
		}
	}
	f.Fuzz(assertReadsAsTree)
}
