package ecf_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/oracle"
)

// xsdNode is any element of an XSD.
type xsdNode struct {
	XMLName  xml.Name
	Name     string    `xml:"name,attr"`
	Children []xsdNode `xml:",any"`
}

// xsdSequences reads DGII's schema name and returns, for every element path
// ("ECF/Encabezado/IdDoc"), the names of its children in sequence order.
// DGII's schemas nest anonymous complex types and never use named ones,
// refs, choices or alls, so this is all of their structure.
func xsdSequences(tb testing.TB, name string) map[string][]string {
	tb.Helper()
	b, err := os.ReadFile(oracle.XSD(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	var root xsdNode
	if err := xml.Unmarshal(b, &root); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	seqs := map[string][]string{}
	var walk func(n xsdNode, path string)
	walk = func(n xsdNode, path string) {
		for _, c := range n.Children {
			switch c.XMLName.Local {
			case "element":
				p := c.Name
				if path != "" {
					p = path + "/" + c.Name
				}
				seqs[p] = []string{}
				walk(c, p)
			case "complexType", "sequence":
				walk(c, path)
			case "choice", "all", "group":
				tb.Fatalf("%s: unexpected xs:%s under %s", name, c.XMLName.Local, path)
			}
			if c.XMLName.Local == "element" && path != "" && n.XMLName.Local == "sequence" {
				seqs[path] = append(seqs[path], c.Name)
			}
		}
	}
	walk(root, "")
	return seqs
}

// assertXSDOrder checks that every element of doc is declared by the schema
// under its parent and that siblings follow the schema's sequence.
func assertXSDOrder(tb testing.TB, xsd string, doc []byte) {
	tb.Helper()
	seqs := xsdSequences(tb, xsd)
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var path []string
	last := []int{-1} // index in the parent's sequence of the previous sibling
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			tb.Fatal(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if len(path) > 0 {
				parent := strings.Join(path, "/")
				seq, ok := seqs[parent]
				if !ok {
					tb.Fatalf("%s: <%s> is not in the schema", xsd, parent)
				}
				i := slices.Index(seq, name)
				switch {
				case i < 0:
					tb.Errorf("%s: <%s> is not a child of <%s> in the schema", xsd, name, parent)
				case i < last[len(last)-1]:
					tb.Errorf("%s: <%s> comes after <%s> under <%s>; the schema's order is %v", xsd, name, seq[last[len(last)-1]], parent, seq)
				default:
					last[len(last)-1] = i
				}
			}
			path = append(path, name)
			last = append(last, -1)
		case xml.EndElement:
			path = path[:len(path)-1]
			last = last[:len(last)-1]
		}
	}
}

// TestModel_XSDOrder checks the model against each type's schema: every
// element the schema declares has a field, and fields are declared in the
// schema's order, which is the order the XML writer follows. A reordered or
// missing field in model.go fails here.
func TestModel_XSDOrder(t *testing.T) {
	for _, typ := range sello.DocumentTypes {
		t.Run("E"+string(typ), func(t *testing.T) {
			seqs := xsdSequences(t, xsdName(typ))
			checkModelOrder(t, seqs, "ECF", reflect.TypeFor[ecf.ECF]())
		})
	}
}

func checkModelOrder(t *testing.T, seqs map[string][]string, path string, typ reflect.Type) {
	t.Helper()
	want := seqs[path]
	var got []string // the model's fields that the schema declares, in model order
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("xml"), ",")
		if name == "-" || !slices.Contains(want, name) {
			continue
		}
		got = append(got, name)
		ft := f.Type
		if ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			checkModelOrder(t, seqs, path+"/"+name, ft)
		}
	}
	var declared []string // the schema's elements that the model has, in schema order
	for _, w := range want {
		if slices.Contains(got, w) {
			declared = append(declared, w)
		} else {
			t.Errorf("%s: the schema declares <%s>, which the model lacks", path, w)
		}
	}
	if !slices.Equal(got, declared) {
		t.Errorf("%s: the model's order\n%v\ndiffers from the schema's\n%v", path, got, declared)
	}
}
