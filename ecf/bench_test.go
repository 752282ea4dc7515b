package ecf_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sello-do/sello/ecf"
)

func BenchmarkDecodeCheck(b *testing.B) {
	for _, n := range []int{1, 300} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			body := benchBody(b, n)
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

// receivedECF returns a type-31 e-CF of n items with a placeholder
// signature, as a supplier would post it.
func receivedECF(tb testing.TB, n int) []byte {
	tb.Helper()
	d := mutate(tb, "31", func(m map[string]any) { at(m, "DetallesItems")["Item"] = items(m, n) })
	MustCheckNumber(tb, d)
	return withPlaceholderSignature(MustXML(tb, d))
}

// BenchmarkReadReceivedECF reads a received e-CF of 1 and 1,000 items in
// one pass (ReadReceivedECF: the header and the XSD structure), beside the
// two passes it replaces (ParseECFHeader, then ReadXML), and refuses
// documents over xmlchar's limits: 200,000 attributes or 20,000 namespace
// declarations on the root.
func BenchmarkReadReceivedECF(b *testing.B) {
	for _, n := range []int{1, 1000} {
		doc := receivedECF(b, n)
		b.Run(fmt.Sprintf("%dItems/OnePass", n), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if r, err := ecf.ReadReceivedECF(doc); err != nil || r.Invalid != nil {
					b.Fatal(err, r.Invalid)
				}
			}
		})
		b.Run(fmt.Sprintf("%dItems/TwoPasses", n), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ecf.ParseECFHeader(doc); err != nil {
					b.Fatal(err)
				}
				if _, err := ecf.ReadXML(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	doc := string(receivedECF(b, 1))
	for name, format := range map[string]string{"Attributes200k": ` a%d="%d"`, "Namespaces20k": ` xmlns:p%d="urn:%d"`} {
		n := 200_000
		if name == "Namespaces20k" {
			n = 20_000
		}
		var attrs strings.Builder
		for i := range n {
			fmt.Fprintf(&attrs, format, i, i)
		}
		bomb := []byte(strings.Replace(doc, "<ECF>", "<ECF"+attrs.String()+">", 1))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(bomb)))
			for b.Loop() {
				if _, err := ecf.ReadReceivedECF(bomb); err == nil {
					b.Fatal("read")
				}
			}
		})
	}
}

// BenchmarkDecode is the signing job's read of a stored document (Decode
// alone, no Check) of 1 and 300 items.
func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{1, 300} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			body := benchBody(b, n)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ecf.Decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchBody is testdata's E31 with n items, as a create's body.
func benchBody(b *testing.B, n int) []byte {
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
	body, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return body
}
