package apitest

import (
	"encoding/json"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// Invoice returns a valid type-31 invoice of the issuer rnc as a request
// body: two units at 500.00 with 18% ITBIS (total 1180.00), issued today in
// the Dominican Republic, totals and e-NCF left for Sello to fill in. Each
// mod may change the "ECF" object before it is encoded.
func Invoice(rnc string, mods ...func(ecf map[string]any)) []byte {
	doc := ecf.SampleInvoice(rnc, sello.TodayInDR(time.Now()))
	for _, m := range mods {
		m(doc["ECF"].(map[string]any))
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// IdDoc returns the IdDoc object of an "ECF" object, for mods.
func IdDoc(ecf map[string]any) map[string]any {
	return Section(ecf, "IdDoc")
}

// Section returns one object of the Encabezado (IdDoc, Emisor, Comprador,
// Totales…), creating it when absent, for mods.
func Section(ecf map[string]any, name string) map[string]any {
	enc := ecf["Encabezado"].(map[string]any)
	if _, ok := enc[name]; !ok {
		enc[name] = map[string]any{}
	}
	return enc[name].(map[string]any)
}

// WithENCF is a mod that sets an explicit e-NCF.
func WithENCF(encf string) func(map[string]any) {
	return func(ecf map[string]any) { IdDoc(ecf)["eNCF"] = encf }
}
