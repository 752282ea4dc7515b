package ecf_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

func TestDecode_InvalidJSON(t *testing.T) {
	tests := map[string]struct{ body, msg string }{
		"Unterminated":  {`{`, "offset 1"},
		"Trailing":      {`{"ECF":{}} x`, "offset 11"},
		"TwoValues":     {`{"ECF":{}}{}`, "offset 10"},
		"Array":         {`[]`, "not an array"},
		"Empty":         {``, "empty"},
		"Blank":         {"  \n", "empty"},
		"String":        {`"ECF"`, "not a string"},
		"BadToken":      {`{"ECF": tru}`, "offset"},
		"MissingColon":  {`{"ECF" {}}`, "offset 8"},
		"InvalidUTF8":   {"{\"ECF\":{\"Encabezado\":{\"Emisor\":{\"RazonSocialEmisor\":\"A\xff\xfe\"}}}}", "invalid UTF-8 at byte offset 54 in ECF.Encabezado.Emisor.RazonSocialEmisor"},
		"LoneSurrogate": {`{"ECF":{"Encabezado":{"Emisor":{"RazonSocialEmisor":"\ud800"}}}}`, "lone UTF-16 surrogate escape at byte offset 53"},
		"DuplicateKey":  {`{"ECF":{"Encabezado":{"Comprador":{"RNCComprador":"1","RNCComprador":"2"}}}}`, `duplicate key "RNCComprador" in object ECF.Encabezado.Comprador`},
		"DuplicateRoot": {`{"ECF":{},"ECF":{}}`, `duplicate key "ECF" in the top-level object`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ecf.Decode([]byte(tt.body))
			if got, want := sello.ErrorCodeOf(err), sello.CodeInvalidJSON; got != want {
				t.Fatalf("code = %s, want %s (%v)", got, want, err)
			}
			if got := sello.ErrorMessageOf(err); !strings.Contains(got, tt.msg) {
				t.Errorf("message %q does not contain %q", got, tt.msg)
			}
		})
	}
}

func TestDecode_ValidationFailed(t *testing.T) {
	body := `{"ECF":{"Encabezado":{"Version":"1.0","IdDoc":{"TipoeCF":31,"Foo":1,"tipoPago":1},
		"Emisor":{"RNCEmisor":131793916,"RazonSocialEmisor":""}},
		"DetallesItems":{"Item":[{"NumeroLinea":1,"PrecioUnitarioItem":"abc","CantidadItem":true},
		                         {"NumeroLinea":2,"PrecioUnitarioItem":1e3,"CantidadItem":"1.5"}]},
		"DescuentosORecargos":{"DescuentoORecargo":"x"}}, "Extra":1}`
	_, err := ecf.Decode([]byte(body))
	if got, want := sello.ErrorCodeOf(err), sello.CodeValidationFailed; got != want {
		t.Fatalf("code = %s, want %s (%v)", got, want, err)
	}
	want := map[string]string{
		"Extra":                                        "Unknown field",
		"ECF.Encabezado.IdDoc.Foo":                     "Unknown field",
		"ECF.Encabezado.IdDoc.tipoPago":                `did you mean "TipoPago"`,
		"ECF.Encabezado.Emisor.RNCEmisor":              "Must be a string",
		"ECF.Encabezado.Emisor.RazonSocialEmisor":      "Must not be empty",
		"ECF.DetallesItems.Item[0].PrecioUnitarioItem": "Invalid number",
		"ECF.DetallesItems.Item[0].CantidadItem":       "not a boolean",
		"ECF.DetallesItems.Item[1].PrecioUnitarioItem": "plain notation",
		"ECF.DescuentosORecargos.DescuentoORecargo":    "Must be an array",
	}
	got := detailsOf(err)
	if len(got) != len(want) {
		t.Errorf("got %d details, want %d: %+v", len(got), len(want), got)
	}
	for path, sub := range want {
		if !hasDetail(err, path, sub) {
			t.Errorf("no detail at %s containing %q in %+v", path, sub, got)
		}
	}
}

func TestDecode_MissingRoot(t *testing.T) {
	_, err := ecf.Decode([]byte(`{"ecf":{}}`))
	if !hasDetail(err, "ECF", "Required") || !hasDetail(err, "ecf", "Unknown") {
		t.Errorf("got %v %+v", err, detailsOf(err))
	}
}

// TestDecode_UnknownFieldSuggestion: an unknown field name gets the known
// name of its object closest to it (internal/spell's rule), and no
// suggestion when none is close.
func TestDecode_UnknownFieldSuggestion(t *testing.T) {
	for _, tt := range []struct{ name, body, path, want string }{
		{"OKTypo", `{"ECF":{"Encabezado":{"Comprador":{"RNCCompradr":"131880681"}}}}`, "ECF.Encabezado.Comprador.RNCCompradr", `Unknown field: did you mean "RNCComprador"?`},
		{"OKTwoEdits", `{"ECF":{"Encabezado":{"Totales":{"MontoTotl":"1.00"}}}}`, "ECF.Encabezado.Totales.MontoTotl", `Unknown field: did you mean "MontoTotal"?`},
		{"OKSwapInItem", `{"ECF":{"DetallesItems":{"Item":[{"NombreIetm":"x"}]}}}`, "ECF.DetallesItems.Item[0].NombreIetm", `Unknown field: did you mean "NombreItem"?`},
		{"OKCase", `{"ECF":{"Encabezado":{"Comprador":{"rnccomprador":"131880681"}}}}`, "ECF.Encabezado.Comprador.rnccomprador", `Unknown field: did you mean "RNCComprador"? Names are case-sensitive`},
		{"OKRoot", `{"ECf":{}}`, "ECf", `Unknown field: did you mean "ECF"? Names are case-sensitive, as in DGII's XML. The body must be {"ECF":{…}}`},
		{"ErrFar", `{"ECF":{"Encabezado":{"Comprador":{"Cliente":"x"}}}}`, "ECF.Encabezado.Comprador.Cliente", "Unknown field."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ecf.Decode([]byte(tt.body))
			if !hasDetail(err, tt.path, tt.want) {
				t.Errorf("no detail at %s containing %q in %+v", tt.path, tt.want, detailsOf(err))
			}
			if strings.HasSuffix(tt.name, "Far") && hasDetail(err, tt.path, "did you mean") {
				t.Errorf("a suggestion for a name far from every field: %+v", detailsOf(err))
			}
		})
	}
}

func TestDecode_NumbersAndStrings(t *testing.T) {
	tests := map[string]struct {
		in, want string
		ok       bool
	}{
		"Number":        {`1180`, "1180.00", true},
		"String":        {`"1180.00"`, "1180.00", true},
		"Precise":       {`0.1`, "0.10", true},
		"FourDecimals":  {`"12.3456"`, "12.3456", true},
		"TrailingZeros": {`"12.3400"`, "12.34", true},
		"HugeExact":     {`9999999999999999.99`, "9999999999999999.99", true},
		"Negative":      {`"-5"`, "-5.00", true},
		"Exponent":      {`1e3`, "", false},
		"Spaces":        {`" 12"`, "", false},
		"Comma":         {`"1,180.00"`, "", false},
		"DotOnly":       {`"1."`, "", false},
		"TooLong":       {`"` + strings.Repeat("9", 41) + `"`, "", false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			d, err := ecf.Decode([]byte(`{"ECF":{"DetallesItems":{"Item":[{"PrecioUnitarioItem":` + tt.in + `}]}}}`))
			if !tt.ok {
				if !hasDetail(err, "ECF.DetallesItems.Item[0].PrecioUnitarioItem", "") {
					t.Fatalf("want a detail, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := d.ECF.DetallesItems.Item[0].PrecioUnitarioItem.String(); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDecode_RoundTrip(t *testing.T) {
	for _, typ := range sello.DocumentTypes {
		t.Run("E"+string(typ), func(t *testing.T) {
			d := MustFixture(t, string(typ))
			if err := ecf.Check(d, testIssuance); err != nil {
				t.Fatal(err)
			}
			first := marshal(t, d)
			d2 := MustDecode(t, []byte(first))
			if got := marshal(t, d2); got != first {
				t.Errorf("round trip differs:\n got %s\nwant %s", got, first)
			}
			if err := ecf.Check(d2, testIssuance); err != nil {
				t.Errorf("Check after round trip: %v %+v", err, detailsOf(err))
			}
			if strings.Contains(first, `""`) || strings.Contains(first, "null") || strings.Contains(first, "{}") {
				t.Errorf("normalized document has empty values: %s", first)
			}
		})
	}
}

func TestDocument_Total(t *testing.T) {
	d := MustFixture(t, "31")
	if got := d.Total(); got != "" {
		t.Errorf("Total before Check = %q, want empty", got)
	}
	if err := ecf.Check(d, testIssuance); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Total(), "1180.00"; got != want {
		t.Errorf("Total() = %q, want %q", got, want)
	}
	if got, want := d.BuyerRNC(), "101023122"; got != want {
		t.Errorf("BuyerRNC() = %q, want %q", got, want)
	}
}

// TestDecode_ProblemPaths: the paths of problems, spelled only when one is
// reported (issue 23), are those the decoder always gave: an empty member
// name, elements of nested lists, a null element, a member after a list.
func TestDecode_ProblemPaths(t *testing.T) {
	body := `{"ECF":{"":1,"DetallesItems":{"Item":[{"NombreItem":"x"},null,{"TablaSubcantidad":{"SubcantidadItem":[{},{"Subcantidad":true}]}},{"CantidadItem":"?"}]},"Encabezado":{"IdDoc":[]}}}`
	_, err := ecf.Decode([]byte(body))
	var got []string
	for _, d := range detailsOf(err) {
		got = append(got, d.Path)
	}
	want := []string{
		"ECF.",
		"ECF.DetallesItems.Item[1]",
		"ECF.DetallesItems.Item[2].TablaSubcantidad.SubcantidadItem[1].Subcantidad",
		"ECF.DetallesItems.Item[3].CantidadItem",
		"ECF.Encabezado.IdDoc",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDecode_ProblemOrder: problems come in the order of the members'
// names, in every object, however the members are ordered in the body or
// iterated (a document with none is decoded in the map's order, one with
// some again in order).
func TestDecode_ProblemOrder(t *testing.T) {
	names := []string{"zz", "Ab", "yy", "Mm", "bb", "aa", "Zz", "cc", "qq", "a"}
	var members, items []string
	for _, n := range names {
		members = append(members, `"`+n+`":1`)
		items = append(items, `"`+n+`":true`)
	}
	body := `{"ECF":{` + strings.Join(members, ",") + `,"DetallesItems":{"Item":[{"NombreItem":"x",` + strings.Join(items, ",") + `}]}}}`
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	var want []string
	for _, n := range sorted {
		if n < "DetallesItems" {
			want = append(want, "ECF."+n)
		}
	}
	for _, n := range sorted {
		want = append(want, "ECF.DetallesItems.Item[0]."+n)
	}
	for _, n := range sorted {
		if n > "DetallesItems" {
			want = append(want, "ECF."+n)
		}
	}
	for range 20 {
		_, err := ecf.Decode([]byte(body))
		var got []string
		for _, d := range detailsOf(err) {
			got = append(got, d.Path)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
