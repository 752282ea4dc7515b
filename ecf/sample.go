package ecf

import "github.com/sello-do/sello"

// SampleInvoice returns a valid type-31 invoice of the issuer rnc, issued on
// the given date, as the JSON object of a request body: two units at 500.00
// with 18% ITBIS (total 1180.00), totals and e-NCF left for Sello. Callers
// may change the map before encoding it (tests, sello bench, examples).
func SampleInvoice(rnc string, issued sello.Date) map[string]any {
	return map[string]any{
		"ECF": map[string]any{
			"Encabezado": map[string]any{
				"Version": "1.0",
				"IdDoc": map[string]any{
					"TipoeCF":               "31",
					"IndicadorMontoGravado": "0",
					"TipoIngresos":          "01",
					"TipoPago":              "1",
				},
				"Emisor": map[string]any{
					"RNCEmisor":         rnc,
					"RazonSocialEmisor": "Sello Demo SRL",
					"DireccionEmisor":   "Av. Winston Churchill 1099, Santo Domingo",
					"FechaEmision":      issued.DGII(),
				},
				"Comprador": map[string]any{
					"RNCComprador":         "131880681",
					"RazonSocialComprador": "Cliente Ejemplo SRL",
				},
			},
			"DetallesItems": map[string]any{
				"Item": []any{map[string]any{
					"NumeroLinea":            1,
					"IndicadorFacturacion":   1,
					"NombreItem":             "Servicio de consultoría",
					"IndicadorBienoServicio": 2,
					"CantidadItem":           2,
					"PrecioUnitarioItem":     "500.00",
				}},
			},
		},
	}
}
