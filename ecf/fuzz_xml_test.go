package ecf_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// assertParseFailure checks that a parser failed the way its doc says:
// PAYLOAD_TOO_LARGE, INVALID_REQUEST, or VALIDATION_FAILED with a path and
// a message on every detail.
func assertParseFailure(t *testing.T, err error) {
	t.Helper()
	var e *sello.Error
	if !errors.As(err, &e) {
		t.Fatalf("error is %T, want *sello.Error: %v", err, err)
	}
	switch e.Code {
	case sello.CodePayloadTooLarge, sello.CodeInvalidRequest:
	case sello.CodeValidationFailed:
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

// FuzzParseECFHeader checks that ParseECFHeader never panics, fails only
// as documented, and that what it accepts is consistent.
func FuzzParseECFHeader(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "E*.xml"))
	for _, name := range files {
		f.Add(MustRead(f, name))
		f.Add(signed(MustRead(f, name)))
	}
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY x "y">]><ECF>&x;</ECF>`))
	f.Add([]byte(`<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado></ECF>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		h, err := ecf.ParseECFHeader(doc)
		if err != nil {
			assertParseFailure(t, err)
			return
		}
		if !slices.Contains(sello.DocumentTypes, h.TipoeCF) {
			t.Fatalf("accepted TipoeCF %q", h.TipoeCF)
		}
		if e, err := sello.ParseENCF(h.ENCF); err != nil || e.Type != h.TipoeCF {
			t.Fatalf("accepted eNCF %q for type %s: %v", h.ENCF, h.TipoeCF, err)
		}
		if h.RNCEmisor == "" || h.MontoTotal == "" || h.FechaHoraFirma.IsZero() || h.FechaEmision == (sello.Date{}) {
			t.Fatalf("accepted a header without a required field: %+v", h)
		}
		if _, err := ecf.ParseDecimal(h.MontoTotal); err != nil {
			t.Fatalf("accepted MontoTotal %q", h.MontoTotal)
		}
	})
}

// FuzzParseACECF checks that ParseACECF never panics, fails only as
// documented, and that what it accepts writes back (ACECF.XML) to a
// document it reads the same.
func FuzzParseACECF(f *testing.F) {
	for _, name := range []string{"ACECF.xml", "ACECF-rechazo.xml"} {
		doc := MustRead(f, filepath.Join("testdata", "golden", name))
		f.Add(doc)
		f.Add(signed(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		a, err := ecf.ParseACECF(doc)
		if err != nil {
			assertParseFailure(t, err)
			return
		}
		out, err := a.XML()
		if err != nil {
			t.Fatalf("accepted ACECF does not write: %v %+v", err, detailsOf(err))
		}
		b, err := ecf.ParseACECF(out)
		if err != nil {
			t.Fatalf("written ACECF does not read: %v %+v\n%s", err, detailsOf(err), out)
		}
		assertSameACECF(t, b, a)
	})
}

// FuzzParseARECF is FuzzParseACECF for receipts.
func FuzzParseARECF(f *testing.F) {
	for _, name := range []string{"ARECF.xml", "ARECF-no-recibido.xml"} {
		doc := MustRead(f, filepath.Join("testdata", "golden", name))
		f.Add(doc)
		f.Add(signed(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		a, err := ecf.ParseARECF(doc)
		if err != nil {
			assertParseFailure(t, err)
			return
		}
		out, err := a.XML()
		if err != nil {
			t.Fatalf("accepted ARECF does not write: %v %+v", err, detailsOf(err))
		}
		b, err := ecf.ParseARECF(out)
		if err != nil {
			t.Fatalf("written ARECF does not read: %v %+v\n%s", err, detailsOf(err), out)
		}
		assertSameARECF(t, b, a)
	})
}

// FuzzReadXML checks that ReadXML never panics, fails only as documented,
// and that what it accepts can be written and reads back the same.
func FuzzReadXML(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "E*.xml"))
	for _, name := range files {
		f.Add(MustRead(f, name))
		f.Add(withPlaceholderSignature(MustRead(f, name)))
	}
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY x "y">]><ECF>&x;</ECF>`))
	f.Add([]byte(`<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado></ECF>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		d, err := ecf.ReadXML(doc)
		if err != nil {
			assertParseFailure(t, err)
			return
		}
		written, err := d.XML(signedAt)
		if err != nil {
			t.Fatalf("accepted a document the writer refuses: %v", err)
		}
		again, err := ecf.ReadXML(withPlaceholderSignature(written))
		if err != nil {
			t.Fatalf("the written document does not read: %v\n%s", err, written)
		}
		if rewritten, _ := again.XML(signedAt); !bytes.Equal(rewritten, written) {
			t.Fatalf("written twice differs:\n%s\n%s", written, rewritten)
		}
	})
}

// FuzzReadReceivedECF checks that ReadReceivedECF answers what
// ParseECFHeader and ReadXML answer: the same header or error, and the
// same document or error in Invalid.
func FuzzReadReceivedECF(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "E*.xml"))
	for _, name := range files {
		f.Add(signed(MustRead(f, name)))
		f.Add(bytes.Replace(signed(MustRead(f, name)), []byte("<Encabezado>"), []byte("<Encabezado><X/>"), 1))
	}
	f.Add([]byte(`<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado></ECF>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r, err := ecf.ReadReceivedECF(doc)
		h, herr := ecf.ParseECFHeader(doc)
		if fmt.Sprint(err) != fmt.Sprint(herr) {
			t.Fatalf("%q: ReadReceivedECF: %v; ParseECFHeader: %v", doc, err, herr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(r.ECFHeader, *h) {
			t.Fatalf("%q: header %+v, want %+v", doc, r.ECFHeader, *h)
		}
		d, derr := ecf.ReadXML(doc)
		if fmt.Sprintf("%v %+v", r.Invalid, detailsOf(r.Invalid)) != fmt.Sprintf("%v %+v", derr, detailsOf(derr)) || !reflect.DeepEqual(r.Document, d) {
			t.Fatalf("%q: ReadReceivedECF: %v; ReadXML: %v", doc, r.Invalid, derr)
		}
	})
}
