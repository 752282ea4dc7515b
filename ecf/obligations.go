package ecf

import (
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/sello-do/sello"
)

// fieldsByPath indexes the obligation table by generic path.
var fieldsByPath = func() map[string]*field {
	m := make(map[string]*field, len(obligations))
	for i := range obligations {
		m[obligations[i].path] = &obligations[i]
	}
	return m
}()

// setBySello lists the elements Sello fills in itself, which a client may
// therefore omit even where DGII requires them: the totals (Check computes
// them), the e-NCF and its expiry (Number sets them) and the signature time.
var setBySello = map[string]bool{
	"ECF.Encabezado.Totales":                         true,
	"ECF.Encabezado.Totales.MontoTotal":              true,
	"ECF.DetallesItems.Item.MontoItem":               true,
	"ECF.Encabezado.IdDoc.eNCF":                      true,
	"ECF.Encabezado.IdDoc.FechaVencimientoSecuencia": true,
	"ECF.FechaHoraFirma":                             true,
}

// typeIndex is t's column in the table, or -1.
func typeIndex(t sello.DocumentType) int { return slices.Index(sello.DocumentTypes, t) }

// code returns the obligation code of the element at generic path for the
// type in column col ('3' for elements outside the table).
func code(path string, col int) byte {
	f, ok := fieldsByPath[path]
	if !ok || col < 0 {
		return '3'
	}
	return f.codes[col]
}

// checkStructure walks the document and reports, for every element, a
// forbidden presence (code 0), a missing required element (code 1), too
// many repetitions, and any departure from its XSD format.
func (c *checker) checkStructure() {
	c.walkStruct(reflect.ValueOf(&c.doc.ECF).Elem(), "ECF", "ECF")
}

// walkField is a field of a struct type at a generic path of the table.
type walkField struct {
	index   int
	name    string // the JSON (and XML) name
	generic string // the generic path
	f       *field
}

// walkKey is a struct type at a generic path.
type walkKey struct {
	t       reflect.Type
	generic string
}

// walkFields caches walkFieldsOf, by walkKey.
var walkFields sync.Map

// walkFieldsOf returns the fields of struct type t, at generic path
// generic, that the obligation table has (the Signature left out),
// computed once.
func walkFieldsOf(t reflect.Type, generic string) []walkField {
	k := walkKey{t, generic}
	if v, ok := walkFields.Load(k); ok {
		return v.([]walkField)
	}
	var out []walkField
	for i := range t.NumField() {
		name := jsonName(t.Field(i))
		if name == "Signature" {
			continue // checked in rules
		}
		g := generic + "." + name
		if f := fieldsByPath[g]; f != nil {
			out = append(out, walkField{index: i, name: name, generic: g, f: f})
		}
	}
	walkFields.Store(k, out)
	return out
}

func (c *checker) walkStruct(v reflect.Value, path, generic string) {
	c.walkFields(v, path, walkFieldsOf(v.Type(), generic))
}

// walkFields is walkStruct with the fields of v's type at its generic
// path.
func (c *checker) walkFields(v reflect.Value, path string, fields []walkField) {
	for _, wf := range fields {
		fv := v.Field(wf.index)
		present := !fv.IsZero()
		if c.col >= 0 {
			switch wf.f.codes[c.col] {
			case '0':
				if present {
					c.addf(path+"."+wf.name, "Not allowed for type %s: DGII's format says %s must not appear in this type.", c.typ, wf.name)
					continue
				}
			case '1':
				if !present && (c.received || !setBySello[wf.generic]) {
					c.addf(path+"."+wf.name, "Required for type %s.", c.typ)
					continue
				}
			}
		}
		if present {
			c.walkValue(fv, path, wf.name, wf.generic, wf.f)
		}
	}
}

// walkValue checks v, the field name of the element at path (its path is
// path.name, only spelled out when needed).
func (c *checker) walkValue(v reflect.Value, parent, name, generic string, f *field) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type().Elem() == decimalType {
			if f.format.kind != kDecimal {
				return
			}
			if msg := f.format.checkDecimal(v.Interface().(*Decimal)); !msg.IsZero() {
				c.addText(parent+"."+name, msg)
			}
			return
		}
		c.walkStruct(v.Elem(), parent+"."+name, generic)
	case reflect.Slice:
		path := parent + "." + name
		n := v.Len()
		if n == 0 {
			c.add(path, "Must not be an empty list: omit it instead (DGII rejects empty elements).")
			return
		}
		if generic == itemsPath {
			if limit := maxItems(c.typ); n > limit {
				of := sello.Textf("a document")
				if c.col >= 0 {
					of = sello.Textf("type %s", c.typ)
				}
				c.addf(path, "At most %d items are allowed in %s (DGII's XSD); got %d. The items were not checked.", limit, of, n)
				c.tooManyItems = true
				return
			}
		} else if max := maxOccurs(f); max > 0 && n > max {
			c.addf(path, "At most %d repetitions are allowed; got %d.", max, n)
		}
		if v.Type().Elem().Kind() == reflect.String {
			for i := range n {
				if msg := f.format.checkString(v.Index(i).String()); !msg.IsZero() {
					c.addText(path+"["+strconv.Itoa(i)+"]", msg)
				}
			}
			return
		}
		fields := walkFieldsOf(v.Type().Elem(), generic)
		for i := range n {
			c.walkFields(v.Index(i), path+"["+strconv.Itoa(i)+"]", fields)
		}
	case reflect.String:
		if f.format.kind == kGroup || f.format.kind == kList {
			return
		}
		if msg := f.format.checkString(v.String()); !msg.IsZero() {
			c.addText(parent+"."+name, msg)
		}
	case reflect.Struct:
		c.walkStruct(v, parent+"."+name, generic)
	}
}

// maxOccurs is how many times a repeated element may appear (0: unbounded
// here; the item limit depends on the type, see maxItems).
func maxOccurs(f *field) int {
	switch {
	case f.path == "ECF.Encabezado.Emisor.TablaTelefonoEmisor.TelefonoEmisor":
		return 3
	case f.path == itemsPath:
		return 0
	case f.format.kind == kList:
		return f.format.max
	}
	return 0
}
