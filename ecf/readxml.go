package ecf

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/sello-do/sello"
)

// maxECFElements bounds the elements ReadXML reads: ten thousand items of
// a dozen elements each, with room to spare.
const maxECFElements = 1 << 18

// ReadXML reads another taxpayer's e-CF (any of the ten types) into the
// model the JSON decoder builds, holding it to the structural rules of its
// type's XSD: every element known under its parent and in the XSD's
// sequence (the order Document.XML writes), none repeated that the XSD has
// once, no attributes, the required elements present (the type's
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
// Returns PAYLOAD_TOO_LARGE above MaxECFSize, INVALID_REQUEST when the XML
// is not a well-formed e-CF (a DOCTYPE, another encoding than UTF-8, a
// root other than <ECF> without namespace, nesting deeper than 32), or
// VALIDATION_FAILED with a detail per problem, at paths like the JSON
// decoder's ("ECF.DetallesItems.Item[3].PrecioUnitarioItem").
func ReadXML(data []byte) (*Document, error) {
	root, p, err := readECFTree(data)
	if err != nil {
		return nil, err
	}
	return readTree(root, p)
}

// readTree maps the tree of an e-CF's elements onto the model and holds it
// to its type's XSD structure (see ReadXML), after the problems p already
// found.
func readTree(root map[string]any, p sello.Problems) (*Document, error) {
	d := &Document{}
	dec := &decoder{problems: p}
	dec.value("ECF", root, reflect.ValueOf(&d.ECF).Elem())
	ch := &checker{doc: d, received: true, problems: &dec.problems, skip: dec.problems.Details()}
	ch.typ = sello.DocumentType(ch.idDoc().TipoeCF)
	ch.col = typeIndex(ch.typ)
	if ch.typ == "" { // without a type, no element is required
		ch.add(pIdDoc+"TipoeCF", "Required: the e-CF type (31, 32, 33, 34, 41, 43, 44, 45, 46 or 47) decides the XSD.")
	}
	ch.checkStructure()
	ch.checkNumeroReferencia() // a format, but one that depends on the type
	if err := dec.problems.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// xmlFrame is an element being read by readECFTree.
type xmlFrame struct {
	path string
	name string
	kind xmlKind
	plan *xmlPlan       // xGroup, xGroupList: the children's plan
	obj  map[string]any // xGroup, xGroupList: the children read
	text []byte         // xText, xDecimal, xTextList
	skip bool           // unknown, repeated, misplaced or the Signature: not read
	last int            // the plan index of the last child, -1 before any
	bad  bool           // a content problem was reported
	full bool           // a list reached MaxListLen (reported once)
}

// listOf returns the elements of list name read so far in obj.
func listOf(obj map[string]any, name string) []any {
	l, _ := obj[name].([]any)
	return l
}

// readECFTree reads data into the JSON-shaped value the decoder takes
// (element names as keys, repeated groups as arrays, text as strings),
// reporting in p every element out of the writer's (the XSD's) order,
// unknown, repeated or carrying attributes.
func readECFTree(data []byte) (map[string]any, sello.Problems, error) {
	var p sello.Problems
	if len(data) > MaxECFSize {
		return nil, p, sello.Errorf(sello.CodePayloadTooLarge, "The ECF XML has %d bytes; at most %d are accepted.", len(data), MaxECFSize)
	}
	bad := invalidXML("ECF")
	next := strictTokens(data, bad)
	var (
		stack    []*xmlFrame
		root     map[string]any
		elements int
	)
	for {
		tok, err := next()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, p, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root != nil {
				return nil, p, bad("content after the root element")
			}
			if elements++; elements > maxECFElements {
				return nil, p, bad("more than %d elements", maxECFElements)
			}
			if len(stack) >= maxXMLDepth {
				return nil, p, bad("elements nest deeper than %d", maxXMLDepth)
			}
			if len(stack) == 0 {
				if t.Name.Local != "ECF" || t.Name.Space != "" {
					return nil, p, bad("the root element must be <ECF> without namespace prefix, not <%s>", qualified(t.Name))
				}
				f := &xmlFrame{path: "ECF", name: "ECF", kind: xGroup, plan: ecfPlan, obj: map[string]any{}, last: -1}
				attributes(&p, f.path, t.Attr)
				stack = append(stack, f)
				continue
			}
			stack = append(stack, child(&p, stack[len(stack)-1], t))
		case xml.CharData:
			if len(stack) == 0 {
				if len(bytes.TrimSpace(t)) > 0 {
					return nil, p, bad("text outside the root element")
				}
				continue
			}
			f := stack[len(stack)-1]
			switch {
			case f.skip:
			case f.plan == nil:
				f.text = append(f.text, t...)
			case !f.bad && len(bytes.TrimSpace(t)) > 0:
				p.Add(f.path, "Must hold elements, not text.")
				f.bad = true
			}
		case xml.EndElement:
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				root = f.obj
			} else if !f.skip {
				parent := stack[len(stack)-1]
				var v any = string(f.text)
				if f.plan != nil {
					v = f.obj
				}
				if f.kind == xGroupList || f.kind == xTextList {
					parent.obj[f.name] = append(listOf(parent.obj, f.name), v)
				} else {
					parent.obj[f.name] = v
				}
			}
		}
	}
	if root == nil {
		return nil, p, bad("no <ECF> element")
	}
	return root, p, nil
}

// child returns the frame of element t under parent, reporting what the
// XSD does not allow there.
func child(p *sello.Problems, parent *xmlFrame, t xml.StartElement) *xmlFrame {
	name := qualified(t.Name)
	skip := &xmlFrame{skip: true}
	switch {
	case parent.skip:
		return skip
	case parent.plan == nil:
		if !parent.bad {
			p.Add(parent.path, "Must hold text, not elements.")
			parent.bad = true
		}
		return skip
	case parent.name == "ECF" && t.Name.Local == "Signature":
		// The XSD's last child, xs:any: anything after it is misplaced.
		if parent.last == len(parent.plan.fields) {
			p.Add("ECF.Signature", "Appears more than once: DGII's XSD has one signature.")
		}
		parent.last = len(parent.plan.fields)
		return skip
	}
	i, ok := parent.plan.byName[name]
	if !ok || t.Name.Space != "" {
		p.Add(parent.path+"."+name, fmt.Sprintf("Unknown element: DGII's XSD has no <%s> in <%s>.", name, parent.name))
		return skip
	}
	f := &parent.plan.fields[i]
	list := f.kind == xGroupList || f.kind == xTextList
	path := parent.path + "." + f.name
	if list {
		n := len(listOf(parent.obj, f.name))
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
			return skip // read already; a list's elements must be consecutive
		}
	case i == parent.last && !list:
		p.Add(path, "Appears more than once: DGII's XSD allows it once.")
		return skip
	default:
		parent.last = i
	}
	attributes(p, path, t.Attr)
	c := &xmlFrame{path: path, name: f.name, kind: f.kind, last: -1}
	if f.plan != nil {
		c.plan, c.obj = f.plan, map[string]any{}
	}
	return c
}

// attributes reports any attribute but namespace declarations: DGII's
// XSD declares none.
func attributes(p *sello.Problems, path string, attrs []xml.Attr) {
	for _, a := range attrs {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue
		}
		p.Add(path, fmt.Sprintf("Attributes are not allowed: DGII's XSD declares none; got %s.", qualified(a.Name)))
		return
	}
}
