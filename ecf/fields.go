package ecf

import (
	"cmp"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// DGII's certification test set (FACTS §5.2) gives each document as a row
// of a workbook whose column headers are the XML element names: a repeated
// element carries its position in brackets, one per repeated ancestor
// ("NombreItem[1]", "TelefonoEmisor[2]", "TipoCodigo[1][2]": the second
// code of the first item), and an empty cell is an absent element. The
// functions here turn such a row into Sello's model with exactly the
// row's elements, written back in the XSD's order.

// ColumnAliases are header spellings DGII's workbooks use for an element
// that is not its XML name, by lowercase header: "ENCF" for eNCF, and
// NumeroLineaDoR for a global discount's or surcharge's NumeroLinea (the
// item's NumeroLinea takes the plain name).
var ColumnAliases = map[string]string{
	"encf":           "ECF.Encabezado.IdDoc.eNCF",
	"numerolineador": "ECF.DescuentosORecargos.DescuentoORecargo.NumeroLinea",
}

// IgnoredColumns are headers of DGII's workbooks whose cells are not
// taken: the test case's number, which is no element, and the elements
// the signature decides (FechaHoraFirma, the signing time; an RFCE's
// CodigoSeguridadeCF, the first six characters of the e-CF's
// SignatureValue), which Sello writes when it signs.
var IgnoredColumns = map[string]bool{"casoprueba": true, "caso": true, "#": true, "fechahorafirma": true, "codigoseguridadecf": true}

// column is an element of the e-CF a header can name.
type column struct {
	path  string   // dotted generic path, "ECF.DetallesItems.Item.NombreItem"
	names []string // the path's elements below ECF
	lists []bool   // which of names repeat (a list of groups or of texts)
	pos   []int    // each element's place among its siblings, in XSD order
}

// depth is how many indexes the column's header carries.
func (c *column) depth() int {
	n := 0
	for _, l := range c.lists {
		if l {
			n++
		}
	}
	return n
}

// columns indexes the leaf elements of the e-CF by lowercase name and
// depth, the first in XSD order winning; byPath by generic path.
var columns, columnsByPath = func() (map[string]*column, map[string]*column) {
	byName, byPath := map[string]*column{}, map[string]*column{}
	var walk func(p *xmlPlan, prefix string, names []string, lists []bool, pos []int)
	walk = func(p *xmlPlan, prefix string, names []string, lists []bool, pos []int) {
		for i, f := range p.fields {
			if f.kind == xIgnored || f.name == "FechaHoraFirma" {
				continue
			}
			n := append(append([]string{}, names...), f.name)
			l := append(append([]bool{}, lists...), f.kind == xGroupList || f.kind == xTextList)
			o := append(append([]int{}, pos...), i)
			path := prefix + "." + f.name
			if f.kind == xGroup || f.kind == xGroupList {
				walk(f.plan, path, n, l, o)
				continue
			}
			c := &column{path: path, names: n, lists: l, pos: o}
			byPath[path] = c
			k := strings.ToLower(f.name) + "/" + strconv.Itoa(c.depth())
			if _, dup := byName[k]; !dup {
				byName[k] = c
			}
		}
	}
	walk(ecfPlan, "ECF", nil, nil, nil)
	return byName, byPath
}()

// headerRE reads a header: a name and up to three [n] indexes.
var headerRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9]*)((?:\[[0-9]{1,5}\]){0,3})$`)

// ParseHeader splits a header into its element name and its indexes (from
// 1). ok is false when the header is not Name or Name[i]… .
func ParseHeader(h string) (name string, idx []int, ok bool) {
	m := headerRE.FindStringSubmatch(strings.TrimSpace(h))
	if m == nil {
		return "", nil, false
	}
	for _, s := range strings.Split(strings.Trim(m[2], "[]"), "][") {
		if s == "" {
			continue
		}
		n, _ := strconv.Atoi(s)
		if n < 1 {
			return "", nil, false
		}
		idx = append(idx, n)
	}
	return m[1], idx, true
}

// lookupColumn returns the e-CF element a header names, nil if none.
func lookupColumn(name string, depth int) *column {
	if p, ok := ColumnAliases[strings.ToLower(name)]; ok {
		if c := columnsByPath[p]; c != nil && c.depth() == depth {
			return c
		}
		return nil
	}
	return columns[strings.ToLower(name)+"/"+strconv.Itoa(depth)]
}

// ReadFields reads a row of DGII's test set (header → cell, empty cells
// left out) into the model, holding it to its type's XSD structure as
// ReadXML does: the document has exactly the row's elements, and
// Document.XML writes them in the XSD's order. FechaHoraFirma is Sello's
// (the signing time) and not taken from the row. Returns
// VALIDATION_FAILED with a detail per header that names no element (path
// "fields.<header>") or per structural problem.
func ReadFields(fields map[string]string) (*Document, error) {
	var p sello.Problems
	root := map[string]any{}
	for _, h := range sortedHeaders(fields) {
		v := fields[h]
		name, idx, ok := ParseHeader(h)
		if IgnoredColumns[strings.ToLower(strings.TrimSpace(h))] {
			continue
		}
		var c *column
		if ok {
			c = lookupColumn(name, len(idx))
		}
		if c == nil {
			p.Add("fields."+h, "Not an element of DGII's e-CF: a header is the element's name with one [n] per repeated ancestor (NombreItem[1], TipoCodigo[1][2]).")
			continue
		}
		put(root, c, idx, v)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	tree := compact(root).(map[string]any)
	tree["FechaHoraFirma"] = dgiiDateTime(time.Now())
	return readTree(tree, sello.Problems{})
}

// sortedHeaders returns the headers in a stable order.
func sortedHeaders(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// put sets the element c at indexes idx to v in the tree under root, lists
// kept as maps by index until compact.
func put(root map[string]any, c *column, idx []int, v string) {
	cur := root
	k := 0
	for i, name := range c.names {
		last := i == len(c.names)-1
		if !c.lists[i] {
			if last {
				cur[name] = v
				return
			}
			next, _ := cur[name].(map[string]any)
			if next == nil {
				next = map[string]any{}
				cur[name] = next
			}
			cur = next
			continue
		}
		list, _ := cur[name].(map[int]any)
		if list == nil {
			list = map[int]any{}
			cur[name] = list
		}
		n := idx[k]
		k++
		if last {
			list[n] = v
			return
		}
		next, _ := list[n].(map[string]any)
		if next == nil {
			next = map[string]any{}
			list[n] = next
		}
		cur = next
	}
}

// compact turns the lists kept by index into lists in index order.
func compact(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			t[k] = compact(c)
		}
		return t
	case map[int]any:
		keys := make([]int, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = compact(t[k])
		}
		return out
	}
	return v
}

// ACECFFields reads a row of the test set's commercial approvals (ACECF's
// elements: RNCEmisor, eNCF, FechaEmision, MontoTotal, RNCComprador,
// Estado, DetalleMotivoRechazo; Version and FechaHoraAprobacionComercial
// are Sello's, the latter the signing time at). MontoTotal is written with
// exactly two decimals, as the XSD wants. Returns VALIDATION_FAILED with a
// detail per unknown header or invalid field.
func ACECFFields(fields map[string]string, at time.Time) (*ACECF, error) {
	var p sello.Problems
	get := map[string]string{}
	known := map[string]bool{"version": true, "rncemisor": true, "encf": true, "fechaemision": true, "montototal": true,
		"rnccomprador": true, "estado": true, "detallemotivorechazo": true, "fechahoraaprobacioncomercial": true}
	for h, v := range fields {
		k := strings.ToLower(strings.TrimSpace(h))
		switch {
		case IgnoredColumns[k]:
		case known[k]:
			get[k] = strings.TrimSpace(v)
		default:
			p.Add("fields."+h, "Not an element of DGII's ACECF (RNCEmisor, eNCF, FechaEmision, MontoTotal, RNCComprador, Estado, DetalleMotivoRechazo).")
		}
	}
	a := &ACECF{RNCEmisor: get["rncemisor"], ENCF: get["encf"], RNCComprador: get["rnccomprador"], DetalleMotivoRechazo: get["detallemotivorechazo"], At: at}
	if d, err := sello.ParseDate(get["fechaemision"]); err != nil {
		p.Add("ACECF.FechaEmision", "Must be the e-CF's FechaEmision, dd-MM-yyyy.")
	} else {
		a.FechaEmision = d
	}
	if m, err := ParseDecimal(get["montototal"]); err != nil {
		p.Add("ACECF.MontoTotal", "Must be the e-CF's MontoTotal, an amount.")
	} else {
		a.MontoTotal = m.Value().StringFixed(2)
	}
	switch get["estado"] {
	case "1":
		a.Estado = ApprovalAccepted
	case "2":
		a.Estado = ApprovalRejected
	default:
		p.Addf("ACECF.Estado", "Must be 1 (approved) or 2 (rejected), not %q.", get["estado"])
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return a, nil
}

// Fields returns the document as a row of DGII's test set: every element
// present, by header (the inverse of ReadFields, FechaHoraFirma left out).
// Amounts are written with their scale.
func (d *Document) Fields() map[string]string {
	out := map[string]string{}
	var walk func(v reflect.Value, p *xmlPlan, prefix string, idx []int)
	walk = func(v reflect.Value, p *xmlPlan, prefix string, idx []int) {
		for _, f := range p.fields {
			if f.kind == xIgnored || f.name == "FechaHoraFirma" {
				continue
			}
			fv, path := v.Field(f.index), prefix+"."+f.name
			switch f.kind {
			case xText:
				if s := fv.String(); s != "" {
					out[header(path, f.name, idx)] = s
				}
			case xDecimal:
				if !fv.IsNil() {
					out[header(path, f.name, idx)] = fv.Interface().(*Decimal).String()
				}
			case xGroup:
				if !fv.IsNil() {
					walk(fv.Elem(), f.plan, path, idx)
				}
			case xGroupList:
				for j := range fv.Len() {
					walk(fv.Index(j), f.plan, path, append(append([]int{}, idx...), j+1))
				}
			case xTextList:
				for j := range fv.Len() {
					if s := fv.Index(j).String(); s != "" {
						out[header(path, f.name, append(append([]int{}, idx...), j+1))] = s
					}
				}
			}
		}
	}
	walk(reflect.ValueOf(&d.ECF).Elem(), ecfPlan, "ECF", nil)
	return out
}

// header is the column of the element at generic path with indexes idx:
// its name, or DGII's spelling of it when it has an alias.
func header(path, name string, idx []int) string {
	for alias, p := range ColumnAliases {
		if p == path {
			name = aliasHeaders[alias]
		}
	}
	var b strings.Builder
	b.WriteString(name)
	for _, i := range idx {
		fmt.Fprintf(&b, "[%d]", i)
	}
	return b.String()
}

// aliasHeaders spells the aliases as DGII's workbooks do.
var aliasHeaders = map[string]string{"encf": "ENCF", "numerolineador": "NumeroLineaDoR"}

// acecfHeaders are ACECF's elements in the XSD's order.
var acecfHeaders = []string{"version", "rncemisor", "encf", "fechaemision", "montototal", "rnccomprador", "estado", "detallemotivorechazo", "fechahoraaprobacioncomercial"}

// CompareHeaders orders two headers of the test set as the elements they
// name appear in the document: the XSD's order, a repeated group's
// elements together ("NumeroLinea[1]" … "MontoItem[1]" before
// "NumeroLinea[2]"). ACECF's own headers (Estado, DetalleMotivoRechazo)
// go by ACECF's order after the e-CF's; headers that name no element go
// last, by name.
func CompareHeaders(a, b string) int {
	ka, kb := headerKey(a), headerKey(b)
	for i := 0; i < len(ka) && i < len(kb); i++ {
		if ka[i] != kb[i] {
			return cmp.Compare(ka[i], kb[i])
		}
	}
	if len(ka) != len(kb) {
		return cmp.Compare(len(ka), len(kb))
	}
	return strings.Compare(a, b)
}

// headerKey is the sort key of a header: per element of its path, its
// place in the XSD then, when it repeats, its index.
func headerKey(h string) []int {
	name, idx, ok := ParseHeader(h)
	if !ok {
		return []int{1 << 30}
	}
	c := lookupColumn(name, len(idx))
	if c == nil {
		if i := slices.Index(acecfHeaders, strings.ToLower(name)); i >= 0 {
			return []int{1 << 29, i}
		}
		return []int{1 << 30}
	}
	var key []int
	k := 0
	for i := range c.names {
		key = append(key, c.pos[i])
		if c.lists[i] {
			key = append(key, idx[k])
			k++
		}
	}
	return key
}
