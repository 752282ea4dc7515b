package ecf_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sello-do/sello/ecf"
)

func BenchmarkDecodeCheck(b *testing.B) {
	for _, n := range []int{1, 300} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			var v map[string]any
			if err := json.Unmarshal(MustRead(b, "testdata/valid/E31.json"), &v); err != nil {
				b.Fatal(err)
			}
			var items []any
			for i := range n {
				items = append(items, map[string]any{"NumeroLinea": i + 1, "IndicadorFacturacion": 1 + i%4, "NombreItem": "Artículo",
					"IndicadorBienoServicio": 1, "CantidadItem": "2", "UnidadMedida": "43", "PrecioUnitarioItem": "123.4567"})
			}
			at(v["ECF"].(map[string]any), "DetallesItems")["Item"] = items
			body, _ := json.Marshal(v)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				d, err := ecf.Decode(body)
				if err != nil {
					b.Fatal(err)
				}
				if err := ecf.Check(d, testIssuance); err != nil {
					b.Fatal(err, detailsOf(err))
				}
			}
		})
	}
}
