package ecf_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/ecf/ecftest"
	"github.com/sello-do/sello/oracle"
)

// TestBroken_SelloRefuses sends every document DGII refuses (ecftest.Broken)
// through Parse, as the API does: each is VALIDATION_FAILED naming the field.
func TestBroken_SelloRefuses(t *testing.T) {
	for _, s := range ecftest.Broken(t, testIssuance.TenantRNC, testIssuance.Now) {
		t.Run(s.Name, func(t *testing.T) {
			_, err := ecf.Parse(s.Body, testIssuance)
			if sello.ErrorCodeOf(err) != sello.CodeValidationFailed || !hasDetail(err, s.Path, "") {
				t.Fatalf("got %v %+v, want VALIDATION_FAILED at %s", err, detailsOf(err), s.Path)
			}
		})
	}
}

// TestBroken_XSD holds the samples to DGII's XSD with xmllint: the ones
// marked schema-invalid are refused by it, the others (refused by DGII's
// format rules only) pass it, so their breakage is the only difference.
func TestBroken_XSD(t *testing.T) {
	xmllint := oracle.Require(t, "xmllint")
	for _, s := range ecftest.Broken(t, testIssuance.TenantRNC, testIssuance.Now) {
		t.Run(s.Name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "doc.xml")
			if err := os.WriteFile(file, withPlaceholderSignature(s.XML), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", oracle.XSD(t, s.XSD), file).CombinedOutput()
			switch {
			case s.SchemaValid && err != nil:
				t.Errorf("xmllint refuses a document only DGII's rules should: %v\n%s", err, out)
			case !s.SchemaValid && err == nil:
				t.Errorf("xmllint accepts it:\n%s", out)
			case !s.SchemaValid && !bytes.Contains(out, []byte(s.Element)):
				t.Errorf("xmllint does not name %s:\n%s", s.Element, out)
			}
		})
	}
}

// TestComputedAmountsFit: a computed amount gets the format check a given
// one gets (16 integer digits, 2 decimals, not negative).
func TestComputedAmountsFit(t *testing.T) {
	tests := []struct {
		name, price, qty, discount, path, msg string
	}{
		{"MontoTotalOverflow", "9999999999999999.99", "1", "", "ECF.Encabezado.Totales.MontoTotal", "at most 16 digits"},
		{"MontoItemOverflow", "9999999999999999.9999", "9", "", "ECF.DetallesItems.Item[0].MontoItem", "at most 16 digits"},
		{"MontoItemNegative", "100.00", "1", "150.00", "ECF.DetallesItems.Item[0].MontoItem", "No puede ser negativo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mutate(t, "31", func(m map[string]any) {
				it := at(m, "DetallesItems.Item[0]")
				it["PrecioUnitarioItem"], it["CantidadItem"] = tt.price, tt.qty
				if tt.discount != "" {
					it["DescuentoMonto"] = tt.discount
				}
			})
			if err := checkErr(t, d); !hasDetail(err, tt.path, tt.msg) {
				t.Fatalf("got %+v, want %q at %s", detailsOf(err), tt.msg, tt.path)
			}
		})
	}
	t.Run("GlobalDiscountOverBase", func(t *testing.T) {
		d := mutate(t, "31", func(m map[string]any) {
			m["DescuentosORecargos"] = map[string]any{"DescuentoORecargo": []any{map[string]any{"NumeroLinea": 1, "TipoAjuste": "D", "TipoValor": "$", "MontoDescuentooRecargo": "5000.00", "IndicadorFacturacionDescuentooRecargo": 1}}}
		})
		err := checkErr(t, d)
		for _, path := range []string{"ECF.Encabezado.Totales.MontoGravadoI1", "ECF.Encabezado.Totales.MontoTotal"} {
			if !hasDetail(err, path, "Must not be negative") {
				t.Errorf("no negative detail at %s: %+v", path, detailsOf(err))
			}
		}
	})
}

// TestCheck_NumeroReferencia: an integer of up to 20 digits in every type
// whose XSD has it but 45, which takes text.
func TestCheck_NumeroReferencia(t *testing.T) {
	const path = "ECF.Encabezado.InformacionesAdicionales.NumeroReferencia"
	for _, typ := range []string{"31", "32", "33", "34", "44", "45", "46"} {
		for value, ok := range map[string]bool{"REF-2026-01": typ == "45", "20260001": true, "123456789012345678901": false} {
			t.Run(typ+"_"+value, func(t *testing.T) {
				d := mutate(t, typ, func(m map[string]any) { at(m, "Encabezado.InformacionesAdicionales")["NumeroReferencia"] = value })
				err := checkErr(t, d)
				if got := hasDetail(err, path, ""); got == ok {
					t.Fatalf("refused = %v, want %v: %+v", got, !ok, detailsOf(err))
				}
			})
		}
	}
}

func TestCheck_OtraMonedaTotal(t *testing.T) {
	const path = "ECF.Encabezado.OtraMoneda.MontoTotalOtraMoneda"
	for total, ok := range map[string]bool{"20.00": true, "20.99": true, "999.00": false, "18.99": false} {
		t.Run(total, func(t *testing.T) {
			d := mutate(t, "31", func(m map[string]any) {
				at(m, "Encabezado")["OtraMoneda"] = map[string]any{"TipoMoneda": "USD", "TipoCambio": "59.00",
					"MontoGravadoTotalOtraMoneda": "16.95", "MontoGravado1OtraMoneda": "16.95",
					"TotalITBISOtraMoneda": "3.05", "TotalITBIS1OtraMoneda": "3.05", "MontoTotalOtraMoneda": total}
			})
			err := checkErr(t, d)
			if got := hasDetail(err, path, "137b"); got == ok {
				t.Fatalf("refused = %v, want %v: %+v", got, !ok, detailsOf(err))
			}
		})
	}
}

func TestCheck_ISRRetenidoOnGood(t *testing.T) {
	const path = "ECF.DetallesItems.Item[0].Retencion.MontoISRRetenido"
	for ind, ok := range map[int]bool{1: false, 2: true} {
		t.Run(fmt.Sprint(ind), func(t *testing.T) {
			d := mutate(t, "41", func(m map[string]any) { at(m, "DetallesItems.Item[0]")["IndicadorBienoServicio"] = ind })
			err := checkErr(t, d)
			if got := hasDetail(err, path, "services only"); got == ok {
				t.Fatalf("refused = %v, want %v: %+v", got, !ok, detailsOf(err))
			}
		})
	}
}

// items returns n copies of the fixture's first item, numbered.
func items(m map[string]any, n int) []any {
	first := at(m, "DetallesItems.Item[0]")
	out := make([]any, n)
	for i := range out {
		it := map[string]any{}
		for k, v := range first {
			it[k] = v
		}
		it["NumeroLinea"] = i + 1
		out[i] = it
	}
	return out
}

// TestCheck_ItemLimits: the maxOccurs of Item in each type's XSD.
func TestCheck_ItemLimits(t *testing.T) {
	const path = "ECF.DetallesItems.Item"
	tests := []struct {
		typ string
		n   int
		ok  bool
	}{
		{"31", 1000, true}, {"31", 1001, false},
		{"32", 1000, true}, {"32", 1001, false}, // under DOP 250,000 too: e-CF-32.xsd says 1,000
		{"41", 1001, false}, {"47", 1001, false},
		{"33", 10000, true}, {"34", 10000, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("E%s_%d", tt.typ, tt.n), func(t *testing.T) {
			d := mutate(t, tt.typ, func(m map[string]any) {
				at(m, "DetallesItems")["Item"] = items(m, tt.n)
				if tt.typ == "34" { // the credit note's lines are exempt: keep it under its original's total
					at(m, "DetallesItems.Item[0]")["PrecioUnitarioItem"] = "250.00"
				}
			})
			err := checkErr(t, d)
			if got := hasDetail(err, path, "At most"); got == tt.ok {
				t.Fatalf("refused = %v, want %v: %+v", got, !tt.ok, detailsOf(err))
			}
			if !tt.ok && len(detailsOf(err)) != 1 {
				t.Errorf("the items were walked: %d details", len(detailsOf(err)))
			}
		})
	}
}

// TestDecode_ListTooLong: an array over 10,000 elements is refused before
// it is decoded, whatever it holds.
func TestDecode_ListTooLong(t *testing.T) {
	for name, n := range map[string]int{"10001": 10_001, "690000": 690_000} {
		t.Run(name, func(t *testing.T) {
			body := []byte(`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"33"}},"DetallesItems":{"Item":[` + strings.Repeat("{},", n-1) + `{}]}}}`)
			_, err := ecf.Parse(body, testIssuance)
			if d := detailsOf(err); len(d) != 1 || d[0].Path != "ECF.DetallesItems.Item" || !strings.Contains(d[0].Message, "10000") {
				t.Fatalf("got %v %+v", err, d)
			}
		})
	}
	t.Run("10000", func(t *testing.T) {
		body := []byte(`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"33"}},"DetallesItems":{"Item":[` + strings.Repeat("{},", 9_999) + `{}]}}}`)
		_, err := ecf.Parse(body, testIssuance)
		if hasDetail(err, "ECF.DetallesItems.Item", "elements") {
			t.Fatalf("10,000 elements refused: %+v", detailsOf(err))
		}
	})
}

// TestParse_DetailsCapped: a document with thousands of problems answers
// the first sello.MaxDetails and counts the rest.
func TestParse_DetailsCapped(t *testing.T) {
	body := []byte(`{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"31"}},"DetallesItems":{"Item":[` + strings.Repeat(`{"X":1},`, 999) + `{"X":1}]}}}`)
	_, err := ecf.Parse(body, testIssuance)
	e, ok := err.(*sello.Error)
	if !ok || len(e.Details) != sello.MaxDetails || e.Truncated < 1000 {
		t.Fatalf("got %v with %d details, %d truncated", err, len(e.Details), e.Truncated)
	}
	if want := fmt.Sprintf("%d problems", len(e.Details)+e.Truncated); !strings.Contains(e.Message, want) {
		t.Errorf("message %q does not count all problems (%s)", e.Message, want)
	}
}
