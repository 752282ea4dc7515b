package ecf_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// FuzzDecode checks that Decode, Check and Parse never panic and only ever return
// INVALID_JSON or VALIDATION_FAILED, the latter with a path on every detail.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "valid", "*.json"))
	for _, name := range files {
		f.Add(MustRead(f, name))
	}
	f.Add([]byte(`{"ECF":{"DetallesItems":{"Item":[{"PrecioUnitarioItem":"1.5","CantidadItem":2,"IndicadorFacturacion":1}]}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		// Parse checks what could be decoded even when decoding found
		// problems: it must hold up on partial documents too.
		if _, err := ecf.Parse(body, testIssuance); err != nil {
			assertClientError(t, err, true)
		}
		d, err := ecf.Decode(body)
		if err != nil {
			assertClientError(t, err, true)
			return
		}
		if err := ecf.Check(d, testIssuance); err != nil {
			assertClientError(t, err, false)
			return
		}
		// A valid document survives its own normalization.
		d2, err := ecf.Decode([]byte(marshal(t, d)))
		if err != nil {
			t.Fatalf("normalized document does not decode: %v %+v", err, detailsOf(err))
		}
		if err := ecf.Check(d2, testIssuance); err != nil {
			t.Fatalf("normalized document does not check: %+v", detailsOf(err))
		}
	})
}

func assertClientError(t *testing.T, err error, decoding bool) {
	t.Helper()
	var e *sello.Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T, want *sello.Error: %v", err, err)
	}
	switch {
	case e.Code == sello.CodeInvalidJSON && decoding:
	case e.Code == sello.CodeValidationFailed:
		if len(e.Details) == 0 {
			t.Fatalf("VALIDATION_FAILED without details: %v", err)
		}
		for _, d := range e.Details {
			if d.Path == "" || d.Message == "" {
				t.Fatalf("detail without path or message: %+v", d)
			}
		}
	default:
		t.Fatalf("unexpected code %s: %v", e.Code, err)
	}
}
