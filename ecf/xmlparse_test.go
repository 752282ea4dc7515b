package ecf_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/oracle"
)

// signed appends a stand-in ds:Signature whose SignatureValue is wrapped
// like a real one.
func signed(doc []byte) []byte {
	i := bytes.LastIndex(doc, []byte("</"))
	sig := `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/></SignedInfo>` +
		"<SignatureValue>\n  Zx9+/Qk\n  AAAA==</SignatureValue></Signature>"
	return append(append(append([]byte{}, doc[:i]...), sig...), doc[i:]...)
}

func TestParseECFHeader(t *testing.T) {
	got, err := ecf.ParseECFHeader(signed(MustXML(t, MustReady(t, "31"))))
	if err != nil {
		t.Fatalf("%v %+v", err, detailsOf(err))
	}
	want := ecf.ECFHeader{
		TipoeCF: "31", ENCF: "E310000000001", RNCEmisor: "131793916", RazonSocialEmisor: "Sello Demo SRL",
		RNCComprador: "101023122", RazonSocialComprador: "Cliente Ejemplo SA",
		FechaEmision: sello.Date{Year: 2025, Month: 4, Day: 1}, MontoTotal: "1180.00", TotalITBIS: "180.00",
		FechaHoraFirma: signedAt.In(sello.DRZone), SecurityCode: "Zx9+/Q",
	}
	if !got.FechaHoraFirma.Equal(want.FechaHoraFirma) {
		t.Errorf("FechaHoraFirma = %v, want %v", got.FechaHoraFirma, want.FechaHoraFirma)
	}
	got.FechaHoraFirma = want.FechaHoraFirma
	if *got != want {
		t.Errorf("\n got %+v\nwant %+v", *got, want)
	}

	// Every golden e-CF reads back, signed or not.
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "E*.xml"))
	for _, name := range files {
		h, err := ecf.ParseECFHeader(MustRead(t, name))
		if err != nil {
			t.Errorf("%s: %v %+v", name, err, detailsOf(err))
			continue
		}
		if h.SecurityCode != "" || !strings.Contains(name, "E"+string(h.TipoeCF)) {
			t.Errorf("%s: %+v", name, h)
		}
	}
}

func TestParseECFHeader_Invalid(t *testing.T) {
	good := string(MustXML(t, MustReady(t, "31")))
	tests := []struct {
		name string
		doc  string
		code sello.ErrorCode
		sub  string // in the message or a detail's path
	}{
		{"Empty", "", sello.CodeInvalidRequest, "no <ECF>"},
		{"NotXML", "hello", sello.CodeInvalidRequest, "outside the root"},
		{"Truncated", good[:len(good)-10], sello.CodeInvalidRequest, "not valid"},
		{"Doctype", `<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY x "boom">]><ECF>&x;</ECF>`, sello.CodeInvalidRequest, "DOCTYPE"},
		{"UndefinedEntity", `<ECF><Encabezado>&x;</Encabezado></ECF>`, sello.CodeInvalidRequest, "not valid"},
		{"Latin1", `<?xml version="1.0" encoding="ISO-8859-1"?><ECF/>`, sello.CodeInvalidRequest, "UTF-8"},
		{"Root", `<RFCE></RFCE>`, sello.CodeInvalidRequest, "root element must be <ECF>"},
		{"Namespace", `<ECF xmlns="urn:x"></ECF>`, sello.CodeInvalidRequest, "root element"},
		{"TwoRoots", good + "<ECF></ECF>", sello.CodeInvalidRequest, "after the root"},
		{"Mismatched", `<ECF><Encabezado></IdDoc></ECF>`, sello.CodeInvalidRequest, "not valid"},
		{"Duplicate", strings.Replace(good, "<eNCF>E310000000001</eNCF>", "<eNCF>E310000000001</eNCF><eNCF>E310000000002</eNCF>", 1), sello.CodeInvalidRequest, "more than once"},
		{"Nested", strings.Replace(good, "<eNCF>E310000000001</eNCF>", "<eNCF><b>E310000000001</b></eNCF>", 1), sello.CodeInvalidRequest, "must hold text"},
		{"Deep", "<ECF>" + strings.Repeat("<a>", 40) + strings.Repeat("</a>", 40) + "</ECF>", sello.CodeInvalidRequest, "deeper"},
		{"TooLarge", "<ECF>" + strings.Repeat(" ", ecf.MaxECFSize) + "</ECF>", sello.CodePayloadTooLarge, "bytes"},
		{"Missing", `<ECF><Encabezado></Encabezado></ECF>`, sello.CodeValidationFailed, "ECF.Encabezado.IdDoc.eNCF"},
		{"TypeMismatch", strings.Replace(good, "<TipoeCF>31</TipoeCF>", "<TipoeCF>32</TipoeCF>", 1), sello.CodeValidationFailed, "ECF.Encabezado.IdDoc.eNCF"},
		{"BadDate", strings.Replace(good, "<FechaEmision>01-04-2025</FechaEmision>", "<FechaEmision>31-02-2025</FechaEmision>", 1), sello.CodeValidationFailed, "ECF.Encabezado.Emisor.FechaEmision"},
		{"BadTotal", strings.Replace(good, "<MontoTotal>1180.00</MontoTotal>", "<MontoTotal>1,180.00</MontoTotal>", 1), sello.CodeValidationFailed, "ECF.Encabezado.Totales.MontoTotal"},
		{"BadFirma", strings.Replace(good, "02-04-2025 09:30:05", "02-04-2025 24:30:05", 1), sello.CodeValidationFailed, "ECF.FechaHoraFirma"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ecf.ParseECFHeader([]byte(tt.doc))
			assertParseError(t, err, tt.code, tt.sub)
		})
	}
}

func assertParseError(t *testing.T, err error, code sello.ErrorCode, sub string) {
	t.Helper()
	var e *sello.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a *sello.Error %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %s, want %s: %v %+v", e.Code, code, err, e.Details)
	}
	if strings.Contains(e.Message, sub) {
		return
	}
	for _, d := range e.Details {
		if d.Path == sub {
			return
		}
	}
	t.Errorf("%q neither in the message nor a detail path: %v %+v", sub, err, e.Details)
}

func TestParseACECF(t *testing.T) {
	a := validACECF()
	a.Estado, a.DetalleMotivoRechazo = ecf.ApprovalRejected, `Precio <distinto> & "mal"`
	for name, doc := range map[string][]byte{"Unsigned": mustBuild(t, a.XML), "Signed": signed(mustBuild(t, a.XML))} {
		t.Run(name, func(t *testing.T) {
			got, err := ecf.ParseACECF(doc)
			if err != nil {
				t.Fatalf("%v %+v", err, detailsOf(err))
			}
			assertSameACECF(t, got, a)
		})
	}
	t.Run("OneDigitFields", func(t *testing.T) {
		// DGII's schema allows 1-4-2025 and 9:5:7.
		doc := `<ACECF><DetalleAprobacionComercial><Version>1.0</Version><RNCEmisor>131793916</RNCEmisor><eNCF>E310000000001</eNCF><FechaEmision>1-4-2025</FechaEmision><MontoTotal>1180.00</MontoTotal><RNCComprador>101023122</RNCComprador><Estado>1</Estado><FechaHoraAprobacionComercial>03-04-2025 9:5:7</FechaHoraAprobacionComercial></DetalleAprobacionComercial></ACECF>`
		got, err := ecf.ParseACECF([]byte(doc))
		if err != nil {
			t.Fatalf("%v %+v", err, detailsOf(err))
		}
		if want := time.Date(2025, 4, 3, 13, 5, 7, 0, time.UTC); !got.At.Equal(want) || got.FechaEmision != (sello.Date{Year: 2025, Month: 4, Day: 1}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		good := string(mustBuild(t, validACECF().XML))
		for _, tt := range []struct{ name, from, to, path string }{
			{"Version", "<Version>1.0</Version>", "<Version>2.0</Version>", "ACECF.Version"},
			{"Estado", "<Estado>1</Estado>", "<Estado>x</Estado>", "ACECF.Estado"},
			{"Monto", "<MontoTotal>1180.00</MontoTotal>", "<MontoTotal>1180</MontoTotal>", "ACECF.MontoTotal"},
			{"Fecha", "<FechaEmision>01-04-2025</FechaEmision>", "", "ACECF.FechaEmision"},
			{"Motivo", "<Estado>1</Estado>", "<Estado>2</Estado>", "ACECF.DetalleMotivoRechazo"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := ecf.ParseACECF([]byte(strings.Replace(good, tt.from, tt.to, 1)))
				assertParseError(t, err, sello.CodeValidationFailed, tt.path)
			})
		}
		_, err := ecf.ParseACECF(MustXML(t, MustReady(t, "31")))
		assertParseError(t, err, sello.CodeInvalidRequest, "root element must be <ACECF>")
		_, err = ecf.ParseACECF([]byte("<ACECF>" + strings.Repeat("x", ecf.MaxReplySize) + "</ACECF>"))
		assertParseError(t, err, sello.CodePayloadTooLarge, "bytes")
	})
}

func TestParseARECF(t *testing.T) {
	for _, a := range []*ecf.ARECF{validARECF(), {RNCEmisor: "131793916", RNCComprador: "00112345678", ENCF: "E310000000001", Estado: ecf.ReceiptNotReceived, CodigoMotivoNoRecibido: ecf.ReasonSignature, At: actAt}} {
		got, err := ecf.ParseARECF(signed(mustBuild(t, a.XML)))
		if err != nil {
			t.Fatalf("%v %+v", err, detailsOf(err))
		}
		assertSameARECF(t, got, a)
	}
	good := string(mustBuild(t, validARECF().XML))
	for _, tt := range []struct{ name, from, to, path string }{
		{"Estado", "<Estado>0</Estado>", "<Estado>5</Estado>", "ARECF.Estado"},
		{"NoMotivo", "<Estado>0</Estado>", "<Estado>1</Estado>", "ARECF.CodigoMotivoNoRecibido"},
		{"Motivo0", "<Estado>0</Estado>", "<Estado>1</Estado><CodigoMotivoNoRecibido>0</CodigoMotivoNoRecibido>", "ARECF.CodigoMotivoNoRecibido"},
		{"RNC", "<RNCComprador>101023122</RNCComprador>", "<RNCComprador>1010</RNCComprador>", "ARECF.RNCComprador"},
		{"Fecha", "03-04-2025 15:04:05", "03-04-2025", "ARECF.FechaHoraAcuseRecibo"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ecf.ParseARECF([]byte(strings.Replace(good, tt.from, tt.to, 1)))
			assertParseError(t, err, sello.CodeValidationFailed, tt.path)
		})
	}
}

func mustBuild(tb testing.TB, build func() ([]byte, error)) []byte {
	tb.Helper()
	b, err := build()
	if err != nil {
		tb.Fatalf("%v %+v", err, detailsOf(err))
	}
	return b
}

func assertSameACECF(tb testing.TB, got, want *ecf.ACECF) {
	tb.Helper()
	g, w := *got, *want
	if !g.At.Equal(w.At) {
		tb.Errorf("At = %v, want %v", g.At, w.At)
	}
	g.At, w.At = time.Time{}, time.Time{}
	if g != w {
		tb.Errorf("\n got %+v\nwant %+v", g, w)
	}
}

func assertSameARECF(tb testing.TB, got, want *ecf.ARECF) {
	tb.Helper()
	g, w := *got, *want
	if !g.At.Equal(w.At) {
		tb.Errorf("At = %v, want %v", g.At, w.At)
	}
	g.At, w.At = time.Time{}, time.Time{}
	if g != w {
		tb.Errorf("\n got %+v\nwant %+v", g, w)
	}
}

// readers are the package's readers of other taxpayers' XML, each
// reporting whether it read doc and its error.
func readers() map[string]func(doc []byte) error {
	return map[string]func([]byte) error{
		"ParseECFHeader": func(doc []byte) error { _, err := ecf.ParseECFHeader(doc); return err },
		"ReadXML":        func(doc []byte) error { _, err := ecf.ReadXML(doc); return err },
		"ReadReceivedECF": func(doc []byte) error {
			r, err := ecf.ReadReceivedECF(doc)
			if err == nil && r.Invalid != nil {
				return r.Invalid
			}
			return err
		},
		"ECFIdentity": func(doc []byte) error {
			if rnc, _ := ecf.ECFIdentity(doc); rnc == "" {
				return errors.New("no identity")
			}
			return nil
		},
		"ParseACECF":   func(doc []byte) error { _, err := ecf.ParseACECF(doc); return err },
		"ParseARECF":   func(doc []byte) error { _, err := ecf.ParseARECF(doc); return err },
		"ParseSemilla": func(doc []byte) error { _, _, err := ecf.ParseSemilla(doc); return err },
	}
}

// readerDocs returns a document each reader reads.
func readerDocs(tb testing.TB) map[string][]byte {
	tb.Helper()
	e31 := withPlaceholderSignature(MustXML(tb, MustReady(tb, "31")))
	return map[string][]byte{
		"ParseECFHeader": e31, "ReadXML": e31, "ReadReceivedECF": e31, "ECFIdentity": e31,
		"ParseACECF":   mustGolden(tb, "ACECF.xml"),
		"ParseARECF":   mustGolden(tb, "ARECF.xml"),
		"ParseSemilla": withPlaceholderSignature(ecf.SemillaXML("valor-de-prueba", signedAt)),
	}
}

// TestReaders_BOM: a UTF-8 byte order mark before the XML, as .NET
// writes it, is skipped by every reader (it was "text outside the root").
func TestReaders_BOM(t *testing.T) {
	docs := readerDocs(t)
	for name, read := range readers() {
		t.Run(name, func(t *testing.T) {
			doc := docs[name]
			if err := read(append([]byte("\xef\xbb\xbf"), doc...)); err != nil {
				t.Errorf("with a byte order mark: %v %+v", err, detailsOf(err))
			}
			if err := read(append([]byte("\xef\xbb\xbf\xef\xbb\xbf"), doc...)); err == nil {
				t.Error("two byte order marks: read")
			}
		})
	}
}

// TestReaders_Limits: an element with more than 16 attributes, or a
// document with more than 16 namespace declarations, is refused by every
// reader with INVALID_REQUEST, before it is read and whatever the size.
func TestReaders_Limits(t *testing.T) {
	docs := readerDocs(t)
	attrs := func(n int, format string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, format, i, i)
		}
		return b.String()
	}
	for name, read := range readers() {
		doc := string(docs[name])
		for bomb, tc := range map[string]struct {
			attrs, msg string
		}{
			"Attributes17":   {attrs(17, ` a%d="%d"`), "carries more than 16 attributes"},
			"Attributes200k": {attrs(200_000, ` a%d="%d"`), "carries more than 16 attributes"},
			"Namespaces20k":  {attrs(20_000, ` xmlns:p%d="urn:%d"`), "more than 16 namespace declarations"},
		} {
			t.Run(name+"/"+bomb, func(t *testing.T) {
				in := []byte(strings.Replace(doc, rootOf(doc), rootOf(doc)+tc.attrs, 1))
				start := time.Now()
				err := read(in)
				took := time.Since(start)
				switch {
				case name == "ECFIdentity":
					if err == nil {
						t.Error("read")
					}
				case len(in) > ecf.MaxReplySize && sello.ErrorCodeOf(err) == sello.CodePayloadTooLarge && (name == "ParseACECF" || name == "ParseARECF" || name == "ParseSemilla"):
					// Refused for its size first.
				case sello.ErrorCodeOf(err) != sello.CodeInvalidRequest || !strings.Contains(sello.ErrorMessageOf(err), tc.msg):
					t.Errorf("got %v, want INVALID_REQUEST with %q", err, tc.msg)
				}
				if took > time.Second { // a few ms; 200k attributes used to cost 111 s in xmldsig
					t.Errorf("refusing %d bytes took %v", len(in), took)
				}
			})
		}
	}
}

// rootOf returns the start of doc's root start tag, "<ECF" or the like.
func rootOf(doc string) string {
	for i := 0; i < len(doc); i++ {
		if doc[i] == '<' && i+1 < len(doc) && doc[i+1] != '?' && doc[i+1] != '!' {
			j := i + 1
			for j < len(doc) && doc[j] != '>' && doc[j] != ' ' {
				j++
			}
			return doc[i:j]
		}
	}
	return ""
}

// TestReadXML_RootAttributes: DGII's XSDs declare no attribute; the root
// may carry the namespace declarations and schema location hints real
// senders write (.NET's xmlns:xsi and xmlns:xsd, xsi:noNamespaceSchemaLocation),
// which XSD allows; any other attribute is a problem at its element.
func TestReadXML_RootAttributes(t *testing.T) {
	good := string(withPlaceholderSignature(MustXML(t, MustReady(t, "31"))))
	const xsi = `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"`
	for name, tc := range map[string]struct {
		from, to string
		path     string // of the problem, "" when read
	}{
		"OKDotNet":          {"<ECF>", `<ECF ` + xsi + ` xmlns:xsd="http://www.w3.org/2001/XMLSchema">`, ""},
		"OKSchemaLocation":  {"<ECF>", `<ECF ` + xsi + ` xsi:noNamespaceSchemaLocation="e-CF-31.xsd">`, ""},
		"OKSchemaLocations": {"<ECF>", `<ECF ` + xsi + ` xsi:schemaLocation="urn:x e-CF-31.xsd">`, ""},
		"ErrXSIType":        {"<ECF>", `<ECF ` + xsi + ` xsi:type="x">`, "ECF"},
		"ErrRootAttribute":  {"<ECF>", `<ECF id="x">`, "ECF"},
		"ErrUnboundXSI":     {"<ECF>", `<ECF xsi:noNamespaceSchemaLocation="e-CF-31.xsd">`, "ECF"},
		"ErrHintBelowRoot":  {"<Emisor>", `<Emisor ` + xsi + ` xsi:noNamespaceSchemaLocation="x.xsd">`, "ECF.Encabezado.Emisor"},
		"OKNamespaceBelow":  {"<Emisor>", `<Emisor xmlns:x="urn:x">`, ""},
	} {
		t.Run(name, func(t *testing.T) {
			doc := strings.Replace(good, tc.from, tc.to, 1)
			_, err := ecf.ReadXML([]byte(doc))
			if tc.path == "" {
				if err != nil {
					t.Fatalf("ReadXML: %v %+v", err, detailsOf(err))
				}
				if out, ok := oracle.Xmllint(t, "e-CF-31.xsd", []byte(doc)); !ok {
					t.Errorf("xmllint refuses it:\n%s", out)
				}
				return
			}
			if !hasDetail(err, tc.path, "Attributes are not allowed") {
				t.Errorf("ReadXML: %v %+v, want a problem at %s", err, detailsOf(err), tc.path)
			}
		})
	}
}
