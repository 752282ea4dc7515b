package dgiisim

import "testing"

// FuzzParseXML: the simulator parses whatever clients upload; it must
// never panic, and never accept a DOCTYPE.
func FuzzParseXML(f *testing.F) {
	for _, s := range []string{
		`<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado></ECF>`,
		`<!DOCTYPE ECF [<!ENTITY x "y">]><ECF>&x;</ECF>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><a/>`,
		`<a><b/></a><c/>`, `text<a/>`, `<a xmlns:ds="x"><ds:Signature/></a>`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := parseXML(b)
		if err == nil && n == nil {
			t.Fatal("nil root without error")
		}
		if err == nil {
			n.get("Encabezado", "IdDoc", "TipoeCF")
			n.child("DetalleAnulacion").all("Anulacion")
		}
	})
}
