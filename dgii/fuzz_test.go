package dgii

import (
	"testing"
)

// The parsers read DGII's (or anyone's) bytes: they must never panic, and
// what they return must be self-consistent.

var fuzzSeeds = []string{
	`{"trackId":"d2b6e27c","codigo":"1","estado":"Aceptado","rnc":"130862346","encf":"E310005000201","secuenciaUtilizada":true,"fechaRecepcion":"8/15/2023 6:06:57 AM","mensajes":[{"valor":"","codigo":0}]}`,
	`<RespuestaConsultaTrackId><trackId>t</trackId><codigo>4</codigo><mensajes><valor>a</valor><codigo>40</codigo></mensajes><mensajes/></RespuestaConsultaTrackId>`,
	`[{"trackId":"a","estado":"Rechazado","fechaRecepcion":"2023-08-15T06:06:57"}]`,
	`{"nombre":"DGII","rnc":"131880681","urlRecepcion":"u","urlAceptacion":"u","urlOpcional":null}`,
	`<ArrayOfDirectorio><Directorio><rnc>1</rnc></Directorio></ArrayOfDirectorio>`,
	`{"token":"abc","expira":"2026-04-01T13:00:00Z","expedido":"2026-04-01T12:00:00Z"}`,
	`{"type":"t","title":"x","errors":{"xml":["y"]}}`,
	`<a xsi:nil="true"/>`, `<a><b/><b/><b>1</b></a>`, `[[[[{}]]]]`, `{"codigo":1e400}`, `{"codigo":-9223372036854775809}`,
	`<!DOCTYPE a><a/>`, "\xef\xbb\xbf{}", "",
}

func FuzzParseResult(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseResult(b)
		if err == nil && r == nil {
			t.Fatal("nil result without error")
		}
		if err == nil {
			r.DGIIResult()
			r.Status()
		}
	})
}

func FuzzParseTrackIDs(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := parseTrackIDs(b)
		for _, e := range entries {
			if e.TrackID == "" {
				t.Fatal("entry without trackId")
			}
		}
		if err == nil && entries == nil {
			t.Fatal("nil list without error")
		}
	})
}

func FuzzParseDirectory(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if entries, err := parseDirectory(b); err == nil && entries == nil {
			t.Fatal("nil list without error")
		}
	})
}

func FuzzParseToken(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if tok, _, _, err := parseToken(b); err == nil && tok == "" {
			t.Fatal("empty token without error")
		}
	})
}

func FuzzParseError(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e := parseError(502, b)
		if len(e.Body) > maxErrorBody || e.Error() == "" {
			t.Fatalf("bad error %#v", e)
		}
		parseEstado(b)
		parseApproval(b)
		parseVoid(b)
		parseRecepcion(b)
	})
}
