package ecf

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sello-do/sello"
)

// XMLDeclaration starts every XML document Sello writes for DGII, as in
// DGII's own samples. Canonicalization drops it, so it does not affect the
// signature.
const XMLDeclaration = `<?xml version="1.0" encoding="utf-8"?>`

// dateTimeLayout is DGII's dd-MM-yyyy HH:mm:ss.
const dateTimeLayout = "02-01-2006 15:04:05"

// dgiiDateTime formats t in the Dominican Republic's time zone (GMT-4) as
// DGII's dd-MM-yyyy HH:mm:ss.
func dgiiDateTime(t time.Time) string { return t.In(sello.DRZone).Format(dateTimeLayout) }

// XML returns the unsigned DGII XML of a checked, numbered document: the
// declaration, then the root <ECF> without namespace or attributes, every
// element in the XSD's order, compact (no whitespace between elements), with
// FechaHoraFirma = signedAt in GMT-4 (dd-MM-yyyy HH:mm:ss) as its last
// child; the signer appends the Signature after it. Amounts are written with
// their scale (two decimals, prices up to four), text is XML-escaped, and
// absent values and groups left empty are omitted: the output never holds
// an empty element.
//
// A FechaHoraFirma in the document is ignored: signedAt is the signing time.
// It returns a plain error (not a *sello.Error: it is a bug in the caller)
// when the document lacks what Check and Number fill in (eNCF, MontoTotal).
func (d *Document) XML(signedAt time.Time) ([]byte, error) {
	if err := d.ready(); err != nil {
		return nil, err
	}
	w := xmlWriter{b: make([]byte, 0, 1024+512*d.itemCount())}
	w.raw(XMLDeclaration)
	w.raw("<ECF>")
	w.fields(reflect.ValueOf(&d.ECF).Elem(), ecfPlan, "FechaHoraFirma")
	w.text("FechaHoraFirma", dgiiDateTime(signedAt))
	w.raw("</ECF>")
	return w.b, nil
}

// ready reports what a checked, numbered document must have before it is
// written.
func (d *Document) ready() error {
	switch {
	case d == nil || d.ECF.Encabezado == nil || d.ECF.Encabezado.IdDoc == nil || d.Type() == "":
		return errors.New("ecf: the document has no TipoeCF: decode and check it first")
	case d.ENCF() == "":
		return errors.New("ecf: the document has no eNCF: number it first")
	case d.Total() == "":
		return errors.New("ecf: the document has no MontoTotal: check it first")
	}
	return nil
}

func (d *Document) itemCount() int {
	if d.ECF.DetallesItems == nil {
		return 0
	}
	return len(d.ECF.DetallesItems.Item)
}

// xmlWriter appends compact XML to b.
type xmlWriter struct{ b []byte }

func (w *xmlWriter) raw(s string) { w.b = append(w.b, s...) }

// open writes <name> and returns the mark to give to end.
func (w *xmlWriter) open(name string) int {
	mark := len(w.b)
	w.b = append(w.b, '<')
	w.b = append(w.b, name...)
	w.b = append(w.b, '>')
	return mark
}

// end closes the element opened at mark, or removes it when nothing was
// written inside: an empty group is omitted, never written empty.
func (w *xmlWriter) end(name string, mark int) {
	if len(w.b) == mark+len(name)+2 {
		w.b = w.b[:mark]
		return
	}
	w.b = append(w.b, '<', '/')
	w.b = append(w.b, name...)
	w.b = append(w.b, '>')
}

// text writes <name>s</name>, escaped, unless s is empty.
func (w *xmlWriter) text(name, s string) {
	if s == "" {
		return
	}
	w.open(name)
	w.b = appendEscaped(w.b, s)
	w.b = append(w.b, '<', '/')
	w.b = append(w.b, name...)
	w.b = append(w.b, '>')
}

// decimal writes <name>d</name> with d's scale, unless d is nil.
func (w *xmlWriter) decimal(name string, d *Decimal) {
	if d == nil {
		return
	}
	w.open(name)
	w.b = appendDecimal(w.b, d)
	w.b = append(w.b, '<', '/')
	w.b = append(w.b, name...)
	w.b = append(w.b, '>')
}

// appendDecimal appends d.String() without its allocations when the
// coefficient fits in an int64, as every amount DGII accepts does.
func appendDecimal(b []byte, d *Decimal) []byte {
	exp := d.v.Exponent()
	if exp > 0 || d.v.NumDigits() > 18 {
		return append(b, d.String()...)
	}
	c := d.v.CoefficientInt64()
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	scale := int(-exp)
	var buf [20]byte
	digits := strconv.AppendInt(buf[:0], c, 10)
	intLen := len(digits) - scale
	if intLen <= 0 { // 0.05: zeros between the point and the digits
		b = append(b, '0', '.')
		for range -intLen {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[:intLen]...)
	if scale > 0 {
		b = append(b, '.')
		b = append(b, digits[intLen:]...)
	}
	return b
}

// appendEscaped appends s with & < > " ' escaped, and carriage returns as
// character references so that parsers do not normalize them away.
func appendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&quot;"
		case '\'':
			esc = "&apos;"
		case '\r':
			esc = "&#xD;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

// The e-CF is written by walking the model: its struct fields are declared
// in the XSD's element order and carry xml tags. The walk follows a plan
// computed once per struct type, so each element costs a field access and
// an append, not a tag lookup.

type xmlKind int

const (
	xText      xmlKind = iota // string or Code
	xDecimal                  // *Decimal
	xGroup                    // *Struct
	xGroupList                // []Struct
	xTextList                 // []string
	xIgnored                  // xml:"-"
)

type xmlField struct {
	name  string
	index int
	kind  xmlKind
	plan  *xmlPlan // xGroup, xGroupList
}

type xmlPlan struct {
	fields []xmlField
	byName map[string]int // a field's index in fields by element name
}

var (
	decimalPtrType = reflect.TypeFor[*Decimal]()
	ecfPlan        = planOf(reflect.TypeFor[ECF]())
)

// planOf returns the plan of struct type t. It panics on a field the
// writer does not know how to write, so a model change that needs the
// writer's attention fails every test at once.
func planOf(t reflect.Type) *xmlPlan {
	p := &xmlPlan{byName: map[string]int{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("xml"), ",")
		f := xmlField{name: tag, index: i}
		switch ft := sf.Type; {
		case tag == "-":
			f.kind = xIgnored
		case tag == "":
			panic(fmt.Sprintf("ecf: %s.%s has no xml tag", t.Name(), sf.Name))
		case ft.Kind() == reflect.String:
			f.kind = xText
		case ft == decimalPtrType:
			f.kind = xDecimal
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			f.kind, f.plan = xGroup, planOf(ft.Elem())
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			f.kind, f.plan = xGroupList, planOf(ft.Elem())
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			f.kind = xTextList
		default:
			panic(fmt.Sprintf("ecf: the XML writer does not handle %s.%s of type %s", t.Name(), sf.Name, ft))
		}
		if f.kind != xIgnored {
			p.byName[f.name] = len(p.fields)
		}
		p.fields = append(p.fields, f)
	}
	return p
}

// fields writes the fields of struct v in plan order, skipping the field
// named skip.
func (w *xmlWriter) fields(v reflect.Value, p *xmlPlan, skip string) {
	for i := range p.fields {
		f := &p.fields[i]
		if f.name == skip {
			continue
		}
		fv := v.Field(f.index)
		switch f.kind {
		case xText:
			w.text(f.name, fv.String())
		case xDecimal:
			if !fv.IsNil() {
				w.decimal(f.name, fv.Interface().(*Decimal))
			}
		case xGroup:
			if !fv.IsNil() {
				mark := w.open(f.name)
				w.fields(fv.Elem(), f.plan, "")
				w.end(f.name, mark)
			}
		case xGroupList:
			for j := range fv.Len() {
				mark := w.open(f.name)
				w.fields(fv.Index(j), f.plan, "")
				w.end(f.name, mark)
			}
		case xTextList:
			for j := range fv.Len() {
				w.text(f.name, fv.Index(j).String())
			}
		}
	}
}

// checkText returns a problem with text s that must be valid XML content of
// at most max characters (0: no limit), or the zero Text.
func checkText(s string, max int) sello.Text {
	if !utf8.ValidString(s) {
		return sello.Textf("Must be valid UTF-8 text.")
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return sello.Textf("Must not contain control characters.")
		}
	}
	if n := utf8.RuneCountInString(s); max > 0 && n > max {
		return sello.Textf("Must have at most %d characters; it has %d.", max, n)
	}
	return sello.Text{}
}
