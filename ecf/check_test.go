package ecf_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// mutate decodes the fixture of typ as generic JSON, applies f, and decodes
// the result as a Document.
func mutate(tb testing.TB, typ string, f func(ecf map[string]any)) *ecf.Document {
	tb.Helper()
	var v map[string]any
	if err := json.Unmarshal(MustRead(tb, "testdata/valid/E"+typ+".json"), &v); err != nil {
		tb.Fatal(err)
	}
	f(v["ECF"].(map[string]any))
	b, _ := json.Marshal(v)
	return MustDecode(tb, b)
}

// at returns the object at a dotted path below ECF, creating objects on the way.
func at(m map[string]any, path string) map[string]any {
	for _, k := range strings.Split(path, ".") {
		if k == "" {
			continue
		}
		if i := strings.IndexByte(k, '['); i >= 0 {
			var n int
			fmt.Sscanf(k[i:], "[%d]", &n)
			m = m[k[:i]].([]any)[n].(map[string]any)
			continue
		}
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	return m
}

func checkErr(tb testing.TB, d *ecf.Document) error {
	tb.Helper()
	err := ecf.Check(d, testIssuance)
	if err != nil && sello.ErrorCodeOf(err) != sello.CodeValidationFailed {
		tb.Fatalf("code = %s, want VALIDATION_FAILED", sello.ErrorCodeOf(err))
	}
	return err
}

// TestCheck_Forbidden adds, for each type, an element DGII's table marks 0
// (must not appear) and expects the detail at its path.
func TestCheck_Forbidden(t *testing.T) {
	tests := []struct{ typ, section, field, value string }{
		{"31", "Encabezado.IdDoc", "IndicadorNotaCredito", "0"},
		{"31", "Encabezado.Comprador", "IdentificadorExtranjero", "X1"},
		{"32", "Encabezado.IdDoc", "FechaVencimientoSecuencia", "31-12-2025"},
		{"33", "Encabezado.Comprador", "PaisComprador", "Francia"},
		{"34", "Encabezado.IdDoc", "FechaVencimientoSecuencia", "31-12-2025"},
		{"34", "Encabezado.IdDoc", "TerminoPago", "30 dias"},
		{"41", "Encabezado.IdDoc", "TipoIngresos", "01"},
		{"43", "Encabezado.IdDoc", "TipoIngresos", "01"},
		{"43", "Encabezado.IdDoc", "IndicadorMontoGravado", "0"},
		{"44", "Encabezado.IdDoc", "IndicadorMontoGravado", "0"},
		{"45", "Encabezado.Comprador", "IdentificadorExtranjero", "X1"},
		{"46", "Encabezado.IdDoc", "IndicadorServicioTodoIncluido", "1"},
		{"47", "Encabezado.IdDoc", "TipoIngresos", "01"},
		{"47", "Encabezado.IdDoc", "IndicadorEnvioDiferido", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"_"+tt.field, func(t *testing.T) {
			d := mutate(t, tt.typ, func(m map[string]any) { at(m, tt.section)[tt.field] = tt.value })
			path := "ECF." + tt.section + "." + tt.field
			if err := checkErr(t, d); !hasDetail(err, path, "Not allowed for type "+tt.typ) {
				t.Errorf("no 'not allowed' detail at %s: %+v", path, detailsOf(err))
			}
		})
	}
	t.Run("43_Comprador", func(t *testing.T) {
		d := mutate(t, "43", func(m map[string]any) {
			at(m, "Encabezado")["Comprador"] = map[string]any{"RNCComprador": "101023122"}
		})
		if err := checkErr(t, d); !hasDetail(err, "ECF.Encabezado.Comprador", "Not allowed for type 43") {
			t.Errorf("got %+v", detailsOf(err))
		}
	})
}

// TestCheck_Required removes, for each type, an element DGII's table marks 1.
func TestCheck_Required(t *testing.T) {
	tests := []struct{ typ, section, field string }{
		{"31", "Encabezado.Comprador", "RNCComprador"},
		{"31", "Encabezado.IdDoc", "TipoIngresos"},
		{"32", "Encabezado.IdDoc", "TipoPago"},
		{"33", "InformacionReferencia", "NCFModificado"},
		{"34", "Encabezado.IdDoc", "IndicadorNotaCredito"},
		{"41", "Encabezado.IdDoc", "TipoPago"},
		{"41", "DetallesItems.Item[0]", "Retencion"},
		{"43", "Encabezado.Emisor", "RazonSocialEmisor"},
		{"44", "Encabezado.Emisor", "DireccionEmisor"},
		{"45", "Encabezado.Comprador", "RNCComprador"},
		{"46", "Encabezado.Comprador", "RazonSocialComprador"},
		{"47", "DetallesItems.Item[0]", "Retencion"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"_"+tt.field, func(t *testing.T) {
			d := mutate(t, tt.typ, func(m map[string]any) { delete(at(m, tt.section), tt.field) })
			path := "ECF." + tt.section + "." + tt.field
			if err := checkErr(t, d); !hasDetail(err, path, "Required") {
				t.Errorf("no 'required' detail at %s: %+v", path, detailsOf(err))
			}
		})
	}
	t.Run("33_InformacionReferencia", func(t *testing.T) {
		d := mutate(t, "33", func(m map[string]any) { delete(m, "InformacionReferencia") })
		if err := checkErr(t, d); !hasDetail(err, "ECF.InformacionReferencia", "Required for type 33") {
			t.Errorf("got %+v", detailsOf(err))
		}
	})
}

func TestCheck_Formats(t *testing.T) {
	tests := []struct {
		name, section, field string
		value                any
		msg                  string
	}{
		{"RNC", "Encabezado.Comprador", "RNCComprador", "12345", "9 or 11 digits"},
		{"Date", "Encabezado.IdDoc", "FechaVencimientoSecuencia", "31-02-2025", "valid date"},
		{"DateISO", "Encabezado.IdDoc", "FechaVencimientoSecuencia", "2025-12-31", "dd-MM-yyyy"},
		{"TipoIngresos", "Encabezado.IdDoc", "TipoIngresos", "07", "one of 01, 02"},
		{"TipoPago", "Encabezado.IdDoc", "TipoPago", 4, "one of 1, 2, 3"},
		{"Version", "Encabezado", "Version", "2.0", "one of 1.0"},
		{"Email", "Encabezado.Emisor", "CorreoEmisor", "no-at-sign", "e-mail"},
		{"Phone", "Encabezado.Emisor", "TablaTelefonoEmisor", map[string]any{"TelefonoEmisor": []any{"8095551234"}}, "999-999-9999"},
		{"Length", "Encabezado.Emisor", "RazonSocialEmisor", strings.Repeat("a", 151), "at most 150"},
		{"Provincia", "Encabezado.Emisor", "Provincia", "990000", "Tabla III"},
		{"UnidadMedida", "DetallesItems.Item[0]", "UnidadMedida", 63, "1 to 62"},
		{"IndicadorFacturacion", "DetallesItems.Item[0]", "IndicadorFacturacion", 5, "one of 0, 1"},
		{"NegativeAmount", "DetallesItems.Item[0]", "PrecioUnitarioItem", "-1.00", "not be negative"},
		{"FiveDecimals", "DetallesItems.Item[0]", "PrecioUnitarioItem", "1.12345", "at most 4 decimals"},
		{"ThreeDecimals", "DetallesItems.Item[0]", "CantidadItem", "1.125", "at most 2 decimals"},
		{"Huge", "DetallesItems.Item[0]", "PrecioUnitarioItem", "12345678901234567", "at most 16 digits"},
		{"ZeroQuantity", "DetallesItems.Item[0]", "CantidadItem", 0, "greater than zero"},
		{"ControlChar", "DetallesItems.Item[0]", "NombreItem", "a\x01b", "control"},
		{"Blank", "DetallesItems.Item[0]", "NombreItem", "   ", "blank"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mutate(t, "31", func(m map[string]any) { at(m, tt.section)[tt.field] = tt.value })
			path := "ECF." + tt.section + "." + tt.field
			if tt.name == "Phone" {
				path += ".TelefonoEmisor[0]"
			}
			if err := checkErr(t, d); !hasDetail(err, path, tt.msg) {
				t.Errorf("no detail at %s containing %q: %+v", path, tt.msg, detailsOf(err))
			}
		})
	}
}

func TestCheck_Rules(t *testing.T) {
	tests := []struct {
		name, typ string
		f         func(m map[string]any)
		path, msg string
	}{
		{"TenantRNC", "31", func(m map[string]any) { at(m, "Encabezado.Emisor")["RNCEmisor"] = "101023122" }, "ECF.Encabezado.Emisor.RNCEmisor", "131793916"},
		{"FutureDate", "31", func(m map[string]any) { at(m, "Encabezado.Emisor")["FechaEmision"] = "03-04-2025" }, "ECF.Encabezado.Emisor.FechaEmision", "future"},
		{"ENCFType", "31", func(m map[string]any) { at(m, "Encabezado.IdDoc")["eNCF"] = "E320000000001" }, "ECF.Encabezado.IdDoc.eNCF", "type 32"},
		{"ENCFFormat", "31", func(m map[string]any) { at(m, "Encabezado.IdDoc")["eNCF"] = "E310000000000" }, "ECF.Encabezado.IdDoc.eNCF", "sequential 0"},
		{"FechaLimitePagoCredit", "31", func(m map[string]any) { at(m, "Encabezado.IdDoc")["TipoPago"] = 2 }, "ECF.Encabezado.IdDoc.FechaLimitePago", "TipoPago is 2"},
		{"FechaLimitePagoBefore", "45", func(m map[string]any) { at(m, "Encabezado.IdDoc")["FechaLimitePago"] = "01-03-2025" }, "ECF.Encabezado.IdDoc.FechaLimitePago", "on or after"},
		{"FechaLimitePagoCash", "31", func(m map[string]any) { at(m, "Encabezado.IdDoc")["FechaLimitePago"] = "01-05-2025" }, "ECF.Encabezado.IdDoc.FechaLimitePago", "credit"},
		{"IndicadorMontoGravado", "31", func(m map[string]any) { delete(at(m, "Encabezado.IdDoc"), "IndicadorMontoGravado") }, "ECF.Encabezado.IdDoc.IndicadorMontoGravado", "taxed"},
		{"NotaCredito30Days", "34", func(m map[string]any) { at(m, "InformacionReferencia")["FechaNCFModificado"] = "01-01-2025" }, "ECF.Encabezado.IdDoc.IndicadorNotaCredito", "Must be 1"},
		{"Exempt43", "43", func(m map[string]any) { at(m, "DetallesItems.Item[0]")["IndicadorFacturacion"] = 1 }, "ECF.DetallesItems.Item[0].IndicadorFacturacion", "Must be 4"},
		{"ZeroRate46", "46", func(m map[string]any) { at(m, "DetallesItems.Item[0]")["IndicadorFacturacion"] = 4 }, "ECF.DetallesItems.Item[0].IndicadorFacturacion", "Must be 3"},
		{"Service47", "47", func(m map[string]any) { at(m, "DetallesItems.Item[0]")["IndicadorBienoServicio"] = 1 }, "ECF.DetallesItems.Item[0].IndicadorBienoServicio", "Must be 2"},
		{"NumeroLinea", "45", func(m map[string]any) { at(m, "DetallesItems.Item[1]")["NumeroLinea"] = 3 }, "ECF.DetallesItems.Item[1].NumeroLinea", "Must be 2"},
		{"Consumo250k", "32", func(m map[string]any) { at(m, "DetallesItems.Item[0]")["PrecioUnitarioItem"] = "300000.00" }, "ECF.Encabezado.Comprador.RNCComprador", "250,000"},
		{"Consumo32Comprador", "32", func(m map[string]any) { delete(at(m, "Encabezado"), "Comprador") }, "ECF.Encabezado.Comprador", "RazonSocialComprador"},
		{"CodigoModificacion31", "31", func(m map[string]any) {
			m["InformacionReferencia"] = map[string]any{"NCFModificado": "E310000000009", "FechaNCFModificado": "01-03-2025", "CodigoModificacion": 1}
		}, "ECF.InformacionReferencia.CodigoModificacion", "only to debit and credit notes"},
		{"FechaHoraFirma", "31", func(m map[string]any) { m["FechaHoraFirma"] = "01-04-2025 10:00:00" }, "ECF.FechaHoraFirma", "set by Sello"},
		{"Signature", "31", func(m map[string]any) { m["Signature"] = map[string]any{"x": 1} }, "ECF.Signature", "set by Sello"},
		{"FormaPago5", "31", func(m map[string]any) {
			at(m, "Encabezado.IdDoc")["TablaFormasPago"] = map[string]any{"FormaDePago": []any{map[string]any{"FormaPago": 5, "MontoPago": 1180}}}
		}, "ECF.Encabezado.IdDoc.TablaFormasPago.FormaDePago[0].FormaPago", "only for type 32"},
		{"TooManyFormasPago", "31", func(m map[string]any) {
			var rows []any
			for range 8 {
				rows = append(rows, map[string]any{"FormaPago": 1, "MontoPago": 1})
			}
			at(m, "Encabezado.IdDoc")["TablaFormasPago"] = map[string]any{"FormaDePago": rows}
		}, "ECF.Encabezado.IdDoc.TablaFormasPago.FormaDePago", "At most 7"},
		{"SubDescuentoSum", "31", func(m map[string]any) {
			it := at(m, "DetallesItems.Item[0]")
			it["DescuentoMonto"] = "100.00"
			it["TablaSubDescuento"] = map[string]any{"SubDescuento": []any{map[string]any{"TipoSubDescuento": "%", "SubDescuentoPorcentaje": 10, "MontoSubDescuento": "50.00"}}}
		}, "ECF.DetallesItems.Item[0].TablaSubDescuento.SubDescuento[0].MontoSubDescuento", "= 100.00"},
		{"GlobalDiscountIndicator", "31", func(m map[string]any) {
			m["DescuentosORecargos"] = map[string]any{"DescuentoORecargo": []any{map[string]any{"NumeroLinea": 1, "TipoAjuste": "D", "TipoValor": "$", "MontoDescuentooRecargo": 10, "IndicadorFacturacionDescuentooRecargo": 2}}}
		}, "ECF.DescuentosORecargos.DescuentoORecargo[0].IndicadorFacturacionDescuentooRecargo", "No item has IndicadorFacturacion 2"},
		{"RNCOtroContribuyente", "33", func(m map[string]any) { at(m, "InformacionReferencia")["RNCOtroContribuyente"] = "131793916" }, "ECF.InformacionReferencia.RNCOtroContribuyente", "equals RNCEmisor"},
		{"TotalPaginas", "31", func(m map[string]any) {
			m["Paginacion"] = map[string]any{"Pagina": []any{map[string]any{"PaginaNo": 1, "NoLineaDesde": 1, "NoLineaHasta": 1, "MontoSubtotalPagina": "1180.00"}}}
		}, "ECF.Encabezado.IdDoc.TotalPaginas", "Required with Paginacion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mutate(t, tt.typ, tt.f)
			if err := checkErr(t, d); !hasDetail(err, tt.path, tt.msg) {
				t.Errorf("no detail at %s containing %q: %+v", tt.path, tt.msg, detailsOf(err))
			}
		})
	}
}

func TestCheck_Tolerances(t *testing.T) {
	tests := []struct {
		name, field, value string
		ok                 bool
		msg                string
	}{
		{"MontoTotalExact", "MontoTotal", "1180.00", true, ""},
		{"MontoTotalWithin", "MontoTotal", "1181.00", true, ""}, // 1 line: ±1.00
		{"MontoTotalBeyond", "MontoTotal", "1181.01", false, "= 1180.00"},
		{"TotalITBISWithin", "TotalITBIS", "179.00", true, ""},
		{"TotalITBISBeyond", "TotalITBIS", "170.00", false, "= 180.00"},
		{"GravadoBeyond", "MontoGravadoI1", "1002.00", false, "= 1000.00"},
		{"ITBIS1Rate", "ITBIS1", "16", false, "Must be 18"},
		{"ExentoNotExpected", "MontoExento", "5.00", false, "no item is exempt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mutate(t, "31", func(m map[string]any) { at(m, "Encabezado.Totales")[tt.field] = tt.value })
			err := checkErr(t, d)
			path := "ECF.Encabezado.Totales." + tt.field
			if tt.ok && err != nil {
				t.Fatalf("want valid, got %+v", detailsOf(err))
			}
			if !tt.ok && !hasDetail(err, path, tt.msg) {
				t.Errorf("no detail at %s containing %q: %+v", path, tt.msg, detailsOf(err))
			}
		})
	}
	t.Run("MontoItem", func(t *testing.T) {
		for value, ok := range map[string]bool{"1000.00": true, "1001.00": true, "999.00": true, "1001.01": false} {
			d := mutate(t, "31", func(m map[string]any) { at(m, "DetallesItems.Item[0]")["MontoItem"] = value })
			err := checkErr(t, d)
			if ok != (err == nil) {
				t.Errorf("MontoItem %s: got %+v", value, detailsOf(err))
			}
			if !ok && !hasDetail(err, "ECF.DetallesItems.Item[0].MontoItem", "= 1000.00") {
				t.Errorf("MontoItem %s: no expected value in %+v", value, detailsOf(err))
			}
		}
	})
	t.Run("GlobalToleranceIsLineCount", func(t *testing.T) {
		// Type 45 has 2 lines: ±2.00.
		d := mutate(t, "45", func(m map[string]any) { at(m, "Encabezado.Totales")["MontoTotal"] = "1182.00" })
		if err := checkErr(t, d); err != nil {
			t.Errorf("want valid within 2.00, got %+v", detailsOf(err))
		}
		d = mutate(t, "45", func(m map[string]any) { at(m, "Encabezado.Totales")["MontoTotal"] = "1182.01" })
		if err := checkErr(t, d); !hasDetail(err, "ECF.Encabezado.Totales.MontoTotal", "±2.00") {
			t.Errorf("got %+v", detailsOf(err))
		}
	})
}

func TestCheck_Totals(t *testing.T) {
	item := func(n, ind int, price, qty string) map[string]any {
		return map[string]any{"NumeroLinea": n, "IndicadorFacturacion": ind, "NombreItem": "x", "IndicadorBienoServicio": 1, "CantidadItem": qty, "PrecioUnitarioItem": price}
	}
	tests := map[string]struct {
		items     []any
		inclusive bool
		extra     func(m map[string]any)
		want      string
	}{
		"MixedRates": {
			items: []any{item(1, 1, "100.00", "1"), item(2, 2, "100.00", "1"), item(3, 3, "100.00", "1"), item(4, 4, "100.00", "1")},
			want:  `{"MontoGravadoTotal":"300.00","MontoGravadoI1":"100.00","MontoGravadoI2":"100.00","MontoGravadoI3":"100.00","MontoExento":"100.00","ITBIS1":"18","ITBIS2":"16","ITBIS3":"0","TotalITBIS":"34.00","TotalITBIS1":"18.00","TotalITBIS2":"16.00","TotalITBIS3":"0.00","MontoTotal":"434.00"}`,
		},
		"InclusiveRounding": {
			// 3 × 33.3333 = 99.9999 → 100.00; /1.18 = 84.745… → 84.75; ITBIS 15.255 → 15.26 (half up).
			items:     []any{item(1, 1, "33.3333", "3")},
			inclusive: true,
			want:      `{"MontoGravadoTotal":"84.75","MontoGravadoI1":"84.75","ITBIS1":"18","TotalITBIS":"15.26","TotalITBIS1":"15.26","MontoTotal":"100.01"}`,
		},
		"GlobalDiscount": {
			items: []any{item(1, 1, "500.00", "2")},
			extra: func(m map[string]any) {
				m["DescuentosORecargos"] = map[string]any{"DescuentoORecargo": []any{map[string]any{"NumeroLinea": 1, "TipoAjuste": "D", "TipoValor": "%", "ValorDescuentooRecargo": 10, "MontoDescuentooRecargo": "100.00", "IndicadorFacturacionDescuentooRecargo": 1}}}
			},
			want: `{"MontoGravadoTotal":"900.00","MontoGravadoI1":"900.00","ITBIS1":"18","TotalITBIS":"162.00","TotalITBIS1":"162.00","MontoTotal":"1062.00"}`,
		},
		"AdditionalTax": {
			items: []any{func() map[string]any {
				it := item(1, 1, "1000.00", "1")
				it["TablaImpuestoAdicional"] = map[string]any{"ImpuestoAdicional": []any{map[string]any{"TipoImpuesto": "001"}}}
				return it
			}()},
			extra: func(m map[string]any) {
				at(m, "Encabezado.Totales")["ImpuestosAdicionales"] = map[string]any{"ImpuestoAdicional": []any{map[string]any{"TipoImpuesto": "001", "TasaImpuestoAdicional": 10, "OtrosImpuestosAdicionales": "100.00"}}}
			},
			want: `{"MontoGravadoTotal":"1000.00","MontoGravadoI1":"1000.00","ITBIS1":"18","TotalITBIS":"180.00","TotalITBIS1":"180.00","MontoImpuestoAdicional":"100.00","ImpuestosAdicionales":{"ImpuestoAdicional":[{"TipoImpuesto":"001","TasaImpuestoAdicional":"10.00","OtrosImpuestosAdicionales":"100.00"}]},"MontoTotal":"1280.00"}`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			d := mutate(t, "31", func(m map[string]any) {
				at(m, "DetallesItems")["Item"] = tt.items
				if tt.inclusive {
					at(m, "Encabezado.IdDoc")["IndicadorMontoGravado"] = 1
				}
				if tt.extra != nil {
					tt.extra(m)
				}
			})
			if err := ecf.Check(d, testIssuance); err != nil {
				t.Fatalf("Check: %+v", detailsOf(err))
			}
			if got := marshal(t, d.ECF.Encabezado.Totales); got != tt.want {
				t.Errorf("Totales:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestCheck_AllViolations checks that every problem comes in one error.
func TestCheck_AllViolations(t *testing.T) {
	d := mutate(t, "31", func(m map[string]any) {
		at(m, "Encabezado.Emisor")["RNCEmisor"] = "101023122"                  // 1: not the tenant
		at(m, "Encabezado.IdDoc")["TipoIngresos"] = "09"                       // 2: enum
		delete(at(m, "Encabezado.Comprador"), "RazonSocialComprador")          // 3: required
		at(m, "Encabezado.IdDoc")["IndicadorNotaCredito"] = 0                  // 4: forbidden for 31
		at(m, "DetallesItems.Item[0]")["NombreItem"] = strings.Repeat("x", 81) // 5: length
	})
	err := checkErr(t, d)
	if got, want := len(detailsOf(err)), 5; got != want {
		t.Errorf("got %d details, want %d: %+v", got, want, detailsOf(err))
	}
	if got, want := sello.ErrorMessageOf(err), "The document is not valid: 5 problems."; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestNumber(t *testing.T) {
	expiry := sello.Date{Year: 2025, Month: 12, Day: 31}
	seq := &sello.Sequence{ExpiresOn: &expiry}
	t.Run("Fills", func(t *testing.T) {
		d := mutate(t, "31", func(m map[string]any) {
			delete(at(m, "Encabezado.IdDoc"), "eNCF")
			delete(at(m, "Encabezado.IdDoc"), "FechaVencimientoSecuencia")
		})
		if err := d.Number(sello.ENCF{Type: "31", Number: 42}, seq); err != nil {
			t.Fatal(err)
		}
		if got, want := d.ENCF(), "E310000000042"; got != want {
			t.Errorf("ENCF = %q, want %q", got, want)
		}
		if got, want := d.ECF.Encabezado.IdDoc.FechaVencimientoSecuencia, "31-12-2025"; got != want {
			t.Errorf("FechaVencimientoSecuencia = %q, want %q", got, want)
		}
		if err := ecf.Check(d, testIssuance); err != nil {
			t.Errorf("Check: %+v", detailsOf(err))
		}
	})
	t.Run("ErrMismatch", func(t *testing.T) {
		d := mutate(t, "31", func(m map[string]any) { at(m, "Encabezado.IdDoc")["FechaVencimientoSecuencia"] = "30-12-2025" })
		err := d.Number(sello.ENCF{Type: "31", Number: 2}, seq)
		if !hasDetail(err, "ECF.Encabezado.IdDoc.eNCF", "E310000000002") || !hasDetail(err, "ECF.Encabezado.IdDoc.FechaVencimientoSecuencia", "31-12-2025") {
			t.Errorf("got %+v", detailsOf(err))
		}
	})
	t.Run("ErrNoExpiry", func(t *testing.T) {
		d := mutate(t, "31", func(m map[string]any) { delete(at(m, "Encabezado.IdDoc"), "FechaVencimientoSecuencia") })
		err := d.Number(sello.ENCF{Type: "31", Number: 1}, &sello.Sequence{})
		if !hasDetail(err, "ECF.Encabezado.IdDoc.FechaVencimientoSecuencia", "no registered expiry") {
			t.Errorf("got %+v", detailsOf(err))
		}
	})
	t.Run("NoExpiryType32", func(t *testing.T) {
		d := mutate(t, "32", func(m map[string]any) { delete(at(m, "Encabezado.IdDoc"), "eNCF") })
		if err := d.Number(sello.ENCF{Type: "32", Number: 7}, &sello.Sequence{}); err != nil {
			t.Fatal(err)
		}
		if got := d.ECF.Encabezado.IdDoc.FechaVencimientoSecuencia; got != "" {
			t.Errorf("FechaVencimientoSecuencia = %q, want none for type 32", got)
		}
	})
}
