package ecf

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strconv"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/xmlchar"
)

// maxECFElements bounds the elements ReadXML reads: ten thousand items of
// a dozen elements each, with room to spare.
const maxECFElements = 1 << 18

// ReadXML reads another taxpayer's e-CF (any of the ten types) into the
// model the JSON decoder builds, holding it to the structural rules of its
// type's XSD: every element known under its parent and in the XSD's
// sequence (the order Document.XML writes), none repeated that the XSD has
// once, no attributes (but namespace declarations, and the root's
// xsi:schemaLocation or xsi:noNamespaceSchemaLocation), the required
// elements present (the type's
// obligation table, with what Sello fills in for its own documents —
// eNCF, FechaVencimientoSecuencia, Totales, MontoItem, FechaHoraFirma —
// required too) and every value in its XSD format. The ds:Signature, the
// last child of ECF, is skipped (the signature is xmldsig's to check; an
// unsigned e-CF reads). FechaHoraFirma is kept. DGII's business rules
// (totals and their tolerances, dates, conditional elements) are not
// applied: DGII judged the document, and Check is for Sello's own.
//
// The document is as written: writing it back with Document.XML at its
// FechaHoraFirma gives the same elements.
//
// A UTF-8 byte order mark is skipped. Returns PAYLOAD_TOO_LARGE above
// MaxECFSize, INVALID_REQUEST when the XML is not a well-formed e-CF (a
// DOCTYPE, another encoding than UTF-8, a root other than <ECF> without
// namespace, nesting deeper than 32, an element with more than
// xmlchar.MaxAttrs attributes or more than xmlchar.MaxNamespaces namespace
// declarations), or
// VALIDATION_FAILED with a detail per problem, at paths like the JSON
// decoder's ("ECF.DetallesItems.Item[3].PrecioUnitarioItem").
func ReadXML(data []byte) (*Document, error) {
	d, p, err := readECFTree(data)
	if err != nil {
		return nil, err
	}
	return checkRead(d, p)
}

// readTree maps the tree of an e-CF's elements onto the model (as the
// JSON decoder does) and holds it to its type's XSD structure (see
// ReadXML), after the problems p already found.
func readTree(root map[string]any, p sello.Problems) (*Document, error) {
	d := &Document{}
	dec := &decoder{problems: p}
	dec.value("ECF", root, reflect.ValueOf(&d.ECF).Elem())
	return checkRead(d, dec.problems)
}

// checkRead holds d, read from XML or a row of DGII's test set, to its
// type's XSD structure (see ReadXML), after the problems p found in
// reading it.
func checkRead(d *Document, p sello.Problems) (*Document, error) {
	ch := &checker{doc: d, received: true, problems: &p, skip: p.Details()}
	ch.typ = sello.DocumentType(ch.idDoc().TipoeCF)
	ch.col = typeIndex(ch.typ)
	if ch.typ == "" { // without a type, no element is required
		ch.add(pIdDoc+"TipoeCF", "Required: the e-CF type (31, 32, 33, 34, 41, 43, 44, 45, 46 or 47) decides the XSD.")
	}
	ch.checkStructure()
	ch.checkNumeroReferencia() // a format, but one that depends on the type
	if err := p.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// readECFTree reads data into the model, reporting in p every element out
// of the writer's (the XSD's) order, unknown, repeated or carrying
// attributes, and every value the model cannot hold (empty, or not a
// number where one is due), in the order met.
func readECFTree(data []byte) (*Document, sello.Problems, error) {
	if len(data) > MaxECFSize {
		return nil, sello.Problems{}, tooLarge("ECF", len(data), MaxECFSize)
	}
	r := newTreeReader(data)
	if err := readTokens(data, r.bad, r)[0]; err != nil {
		return nil, r.p, err
	}
	return r.doc, r.p, nil
}

// treeReader is readECFTree's reader: it decodes each element into its
// field of the model as it is read, following the writer's plan.
type treeReader struct {
	bad      func(format string, args ...any) error
	data     []byte // the document read
	src      string // data as a string, whose text the fields share (xmlToken.at), made on first use
	doc      *Document
	p        sello.Problems
	stack    []xmlFrame // the open elements, the root first
	done     bool
	elements int
}

// xmlFrame is an element being read.
type xmlFrame struct {
	name  string   // the element's name
	index int      // its place in its list, -1 when it is not in one
	path  string   // its path, "" until pathOf computes it
	kind  xmlKind  // the field's kind
	plan  *xmlPlan // xGroup, xGroupList: the children's plan
	value reflect.Value
	text  []byte // xText, xDecimal, xTextList
	at    int    // where text is in src when it is one slice of it, else -1
	seen  uint64 // the plan's fields read, by index
	skip  bool   // unknown, repeated, misplaced or the Signature: not read
	last  int    // the plan index of the last child, -1 before any
	bad   bool   // a content problem was reported
	full  bool   // a list reached MaxListLen (reported once)
}

// newTreeReader returns the reader of data.
func newTreeReader(data []byte) *treeReader {
	r := &treeReader{bad: invalidXML("ECF"), data: xmlchar.TrimBOM(data)}
	r.reset()
	return r
}

func (r *treeReader) reset() {
	stack := r.stack[:0]
	if stack == nil {
		stack = make([]xmlFrame, 0, 8) // an e-CF nests 6 deep
	}
	*r = treeReader{bad: r.bad, data: r.data, src: r.src, doc: &Document{}, stack: stack}
}

// pathOf returns the path of the open element at depth i
// ("ECF.DetallesItems.Item[3].PrecioUnitarioItem").
func (r *treeReader) pathOf(i int) string {
	f := &r.stack[i]
	if f.path == "" {
		p := r.pathOf(i-1) + "." + f.name
		if f.index >= 0 {
			p += "[" + strconv.Itoa(f.index) + "]"
		}
		f.path = p
	}
	return f.path
}

// push opens frame f, reusing the text buffer of the last frame at its
// depth.
func (r *treeReader) push(f xmlFrame) {
	if n := len(r.stack); n < cap(r.stack) {
		f.text = r.stack[:n+1][n].text[:0]
	}
	f.at = -1
	r.stack = append(r.stack, f)
}

func (r *treeReader) token(t *xmlToken) error {
	switch t.kind {
	case tokStart:
		r.elements++
		if err := startError(r.bad, t, len(r.stack), r.elements, r.done); err != nil {
			return err
		}
		if len(r.stack) == 0 {
			if a := badAttribute(t.attrs, true); a != "" {
				r.p.AddText("ECF", attributesText(a))
			}
			r.push(xmlFrame{name: "ECF", index: -1, path: "ECF", kind: xGroup, plan: ecfPlan, value: reflect.ValueOf(&r.doc.ECF).Elem(), last: -1})
			return nil
		}
		r.push(r.child(t))
	case tokText:
		if len(r.stack) == 0 {
			if len(bytes.TrimSpace(t.text)) > 0 {
				return r.bad("text outside the root element")
			}
			return nil
		}
		f := &r.stack[len(r.stack)-1]
		switch {
		case f.skip:
		case f.plan == nil:
			if len(f.text) == 0 && f.at < 0 && t.at >= 0 {
				f.at = t.at // the text so far is src[f.at:][:len(f.text)]
			} else {
				f.at = -1
			}
			f.text = append(f.text, t.text...)
		case !f.bad && len(bytes.TrimSpace(t.text)) > 0:
			r.p.Add(r.pathOf(len(r.stack)-1), "Must hold elements, not text.")
			f.bad = true
		}
	case tokEnd:
		if f := &r.stack[len(r.stack)-1]; !f.skip && f.plan == nil {
			r.setText(len(r.stack) - 1)
		}
		r.stack = r.stack[:len(r.stack)-1]
		r.done = len(r.stack) == 0
	}
	return nil
}

// startError is ReadXML's error for the start tag t at depth (0 for the
// root), the elements-th read, after the root's end when done; nil when
// it is read.
func startError(bad func(string, ...any) error, t *xmlToken, depth, elements int, done bool) error {
	switch {
	case done:
		return bad("content after the root element")
	case elements > maxECFElements:
		return bad("more than %d elements", maxECFElements)
	case depth >= maxXMLDepth:
		return bad("elements nest deeper than %d", maxXMLDepth)
	case depth == 0 && (t.name.Local != "ECF" || t.name.Space != ""):
		return bad("the root element must be <ECF> without namespace prefix, not <%s>", qualified(t.name))
	}
	return nil
}

// emptyMessage is the problem of an empty element, as the JSON decoder
// words it for an empty string.
const emptyMessage = "Must not be empty: DGII rejects empty elements; omit the field instead."

// setText decodes the text of the element at depth i into its field, as
// the JSON decoder decodes a string.
func (r *treeReader) setText(i int) {
	f := &r.stack[i]
	var s string
	if f.at >= 0 {
		if r.src == "" {
			r.src = string(r.data)
		}
		s = r.src[f.at : f.at+len(f.text)] // shared, not copied
	} else {
		s = string(f.text)
	}
	switch f.kind {
	case xText:
		if s == "" {
			r.p.Add(r.pathOf(i), emptyMessage)
			return
		}
		f.value.SetString(s)
	case xDecimal:
		if s == "" {
			r.p.Add(r.pathOf(i), emptyMessage)
			return
		}
		d, err := ParseDecimal(s)
		if err != nil {
			r.p.Addf(r.pathOf(i), "Invalid number: %s.", err.Error())
			return
		}
		f.value.Set(reflect.ValueOf(d))
	case xTextList:
		f.value.Set(reflect.Append(f.value, reflect.ValueOf(s)))
		if s == "" {
			r.p.Add(r.pathOf(i), emptyMessage)
		}
	}
}

func (r *treeReader) end() error {
	if !r.done {
		return r.bad("no <ECF> element")
	}
	return nil
}

// child returns the frame of element t under the innermost open element,
// reporting what the XSD does not allow there.
func (r *treeReader) child(t *xmlToken) xmlFrame {
	name := qualified(t.name)
	skip := xmlFrame{skip: true, index: -1}
	pi := len(r.stack) - 1
	parent := &r.stack[pi]
	switch {
	case parent.skip:
		return skip
	case parent.plan == nil:
		if !parent.bad {
			r.p.Add(r.pathOf(pi), "Must hold text, not elements.")
			parent.bad = true
		}
		return skip
	case pi == 0 && t.name.Local == "Signature":
		// The XSD's last child, xs:any: anything after it is misplaced.
		if parent.last == len(parent.plan.fields) {
			r.p.Add("ECF.Signature", "Appears more than once: DGII's XSD has one signature.")
		}
		parent.last = len(parent.plan.fields)
		return skip
	}
	i, ok := parent.plan.index(name, parent.last)
	if !ok || t.name.Space != "" {
		r.p.Addf(r.pathOf(pi)+"."+name, "Unknown element: DGII's XSD has no <%s> in <%s>.", name, parent.name)
		return skip
	}
	f := &parent.plan.fields[i]
	list := f.kind == xGroupList || f.kind == xTextList
	c := xmlFrame{name: f.name, index: -1, kind: f.kind, plan: f.plan, last: -1, value: parent.value.Field(f.index)}
	if list {
		if c.index = c.value.Len(); c.index >= MaxListLen {
			if !parent.full {
				r.p.Addf(r.pathOf(pi)+"."+f.name, "At most %d elements are allowed in a list (DGII's largest, the items of types 33 and 34); got more.", MaxListLen)
				parent.full = true
			}
			return skip
		}
	}
	path := func() string {
		if c.path == "" {
			c.path = r.pathOf(pi) + "." + f.name
			if list {
				c.path += "[" + strconv.Itoa(c.index) + "]"
			}
		}
		return c.path
	}
	switch {
	case i < parent.last:
		after := "<Signature>"
		if parent.last < len(parent.plan.fields) {
			after = "<" + parent.plan.fields[parent.last].name + ">"
		}
		r.p.Addf(path(), "Out of order: DGII's XSD puts <%s> before %s in <%s>.", f.name, after, parent.name)
		if parent.seen&(1<<i) != 0 {
			return skip // read already; a list's elements must be consecutive
		}
	case i == parent.last && !list:
		r.p.Add(path(), "Appears more than once: DGII's XSD allows it once.")
		return skip
	default:
		parent.last = i
	}
	parent.seen |= 1 << i
	if a := badAttribute(t.attrs, false); a != "" {
		r.p.AddText(path(), attributesText(a))
	}
	switch f.kind {
	case xGroup:
		if c.value.IsNil() {
			c.value.Set(reflect.New(c.value.Type().Elem()))
		}
		c.value = c.value.Elem()
	case xGroupList:
		if c.index == 0 && f.plan == itemPlan {
			// The items are most of an e-CF: sized at once.
			c.value.Set(reflect.MakeSlice(c.value.Type(), 0, r.itemsHint()))
		}
		c.value = appendZero(c.value)
	}
	return c
}

// itemPlan is the plan of an item (DetallesItems.Item).
var itemPlan = func() *xmlPlan {
	items := ecfPlan.fields[ecfPlan.byName["DetallesItems"]].plan
	return items.fields[items.byName["Item"]].plan
}()

// itemsHint is how many items the document seems to hold: its "<Item>"
// tags, no more than a valid item's size allows (so that what is
// allocated stays proportional to the document) or MaxListLen.
func (r *treeReader) itemsHint() int {
	return max(1, min(bytes.Count(r.data, []byte("<Item>")), len(r.data)/100, MaxListLen))
}

// appendZero appends a zero element to the slice list (settable) and
// returns it (addressable). The slice doubles when full: append's growth
// of a thousand items, by a quarter at a time, allocates five times the
// list.
func appendZero(list reflect.Value) reflect.Value {
	n := list.Len()
	if n == list.Cap() {
		grown := reflect.MakeSlice(list.Type(), n, max(2*n, 4))
		reflect.Copy(grown, list)
		list.Set(grown)
	}
	list.SetLen(n + 1)
	return list.Index(n)
}

// badAttribute returns the name of the first attribute in attrs DGII's
// XSD does not allow, or "". It declares none, so only namespace
// declarations may appear, and on the root the schema location hints
// senders write (xsi:schemaLocation, xsi:noNamespaceSchemaLocation),
// which XSD allows on any element.
func badAttribute(attrs []xml.Attr, root bool) string {
	for _, a := range attrs {
		switch {
		case a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns":
		case root && a.Name.Space == nsXSI && (a.Name.Local == "schemaLocation" || a.Name.Local == "noNamespaceSchemaLocation"):
		default:
			return qualified(a.Name)
		}
	}
	return ""
}

// attributesMessage is the problem of an element carrying attributes.
func attributesMessage(name string) string { return attributesText(name).String() }

// attributesText is attributesMessage in the reader's language.
func attributesText(name string) sello.Text {
	return sello.Textf("Attributes are not allowed: DGII's XSD declares none; got %s.", name)
}

// nsXSI is the XML Schema instance namespace.
const nsXSI = "http://www.w3.org/2001/XMLSchema-instance"

// index returns the index of the field named name, looked for first
// after the field at last, where a document in the XSD's order has it.
func (p *xmlPlan) index(name string, last int) (int, bool) {
	for i := max(last, 0); i < len(p.fields) && i <= last+4; i++ {
		if p.fields[i].name == name && p.fields[i].kind != xIgnored {
			return i, true
		}
	}
	i, ok := p.byName[name]
	return i, ok
}
