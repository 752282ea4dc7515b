package ecf_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// actAt is the time of the goldens' acts: 15:04:05 in the DR.
var actAt = time.Date(2025, 4, 3, 19, 4, 5, 0, time.UTC)

func validACECF() *ecf.ACECF {
	return &ecf.ACECF{
		RNCEmisor: "131793916", ENCF: "E310000000001", FechaEmision: sello.Date{Year: 2025, Month: 4, Day: 1},
		MontoTotal: "1180.00", RNCComprador: "101023122", Estado: ecf.ApprovalAccepted, At: actAt,
	}
}

func validARECF() *ecf.ARECF {
	return &ecf.ARECF{RNCEmisor: "131793916", RNCComprador: "101023122", ENCF: "E310000000001", Estado: ecf.ReceiptReceived, At: actAt}
}

func validANECF() *ecf.ANECF {
	return &ecf.ANECF{RNCEmisor: "131793916", At: actAt, Ranges: []ecf.ANECFRange{
		{Type: sello.TypeConsumo, From: 50, To: 99},
		{Type: sello.TypeCreditoFiscal, From: 10, To: 10},
		{Type: sello.TypeConsumo, From: 1, To: 5},
	}}
}

// assertReply checks a builder's output against its golden file, its XSD
// (with the placeholder signature where the XSD requires one) and the
// no-empty-element rule.
func assertReply(t *testing.T, golden, xsd string, doc []byte, signatureRequired bool) {
	t.Helper()
	assertGolden(t, golden, doc)
	assertNoEmptyElement(t, doc)
	assertXSDOrder(t, xsd, doc)
	if signatureRequired {
		assertXSD(t, xsd, withPlaceholderSignature(doc))
	} else {
		assertXSD(t, xsd, doc)
		assertXSD(t, xsd, withPlaceholderSignature(doc))
	}
}

func TestRFCE(t *testing.T) {
	d := MustReady(t, "32")
	if !d.NeedsRFCE() {
		t.Fatal("NeedsRFCE() = false for a type 32 of 118.00")
	}
	got, err := d.RFCE(goldenSecurityCode)
	if err != nil {
		t.Fatal(err)
	}
	assertReply(t, "RFCE32.xml", "RFCE-32.xsd", got, true)
	if !bytes.Contains(got, []byte("<CodigoSeguridadeCF>m+tP/r</CodigoSeguridadeCF></Encabezado></RFCE>")) {
		t.Errorf("security code: %s", got)
	}
	for _, absent := range []string{"DetallesItems", "<ITBIS1>", "FechaHoraFirma", "DireccionEmisor"} {
		if bytes.Contains(got, []byte(absent)) {
			t.Errorf("the RFCE carries %s: %s", absent, got)
		}
	}
}

func TestRFCE_Full(t *testing.T) {
	// A consumer invoice with payment forms, a foreign buyer, an additional
	// tax and a non-billable line: every RFCE group at once.
	d := MustFixture(t, "32")
	d.ECF.Encabezado.IdDoc.TablaFormasPago = &ecf.TablaFormasPago{FormaDePago: []ecf.FormaDePago{
		{FormaPago: "1", MontoPago: ecf.MustDecimal("100.00")}, {FormaPago: "3", MontoPago: ecf.MustDecimal("18.00")},
	}}
	d.ECF.Encabezado.Comprador = &ecf.Comprador{IdentificadorExtranjero: "PA-1", RazonSocialComprador: "Turista & Cía"}
	MustCheckNumber(t, d)
	got, err := d.RFCE("AbC+/=")
	if err != nil {
		t.Fatal(err)
	}
	assertNoEmptyElement(t, got)
	assertXSDOrder(t, "RFCE-32.xsd", got)
	assertXSD(t, "RFCE-32.xsd", withPlaceholderSignature(got))
	for _, want := range []string{
		"<TablaFormasPago><FormaDePago><FormaPago>1</FormaPago><MontoPago>100.00</MontoPago></FormaDePago>",
		"<Comprador><IdentificadorExtranjero>PA-1</IdentificadorExtranjero><RazonSocialComprador>Turista &amp; Cía</RazonSocialComprador></Comprador>",
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
}

func TestRFCE_Errors(t *testing.T) {
	t.Run("NotConsumo", func(t *testing.T) {
		d := MustReady(t, "31")
		if d.NeedsRFCE() {
			t.Error("NeedsRFCE() = true for type 31")
		}
		if _, err := d.RFCE("abcdef"); err == nil || !strings.Contains(err.Error(), "not a type 32") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("250k", func(t *testing.T) {
		d := MustFixture(t, "32")
		d.ECF.DetallesItems.Item[0].PrecioUnitarioItem = ecf.MustDecimal("250000.00")
		d.ECF.Encabezado.Comprador = &ecf.Comprador{RNCComprador: "101023122", RazonSocialComprador: "Cliente"}
		MustCheckNumber(t, d)
		if d.NeedsRFCE() {
			t.Error("NeedsRFCE() = true at 250,000.00")
		}
		if _, err := d.RFCE("abcdef"); err == nil {
			t.Error("RFCE at 250,000.00 succeeded")
		}
	})
	t.Run("SecurityCode", func(t *testing.T) {
		d := MustReady(t, "32")
		for _, code := range []string{"", "abcde", "abcdefg", "abc\x00ef"} {
			if _, err := d.RFCE(code); err == nil {
				t.Errorf("RFCE(%q) succeeded", code)
			}
		}
	})
}

func TestACECF(t *testing.T) {
	t.Run("Accepted", func(t *testing.T) {
		got, err := validACECF().XML()
		if err != nil {
			t.Fatal(err)
		}
		assertReply(t, "ACECF.xml", "ACECF.xsd", got, false)
		if !bytes.Contains(got, []byte("<FechaHoraAprobacionComercial>03-04-2025 15:04:05</FechaHoraAprobacionComercial>")) {
			t.Errorf("time not in GMT-4: %s", got)
		}
	})
	t.Run("Rejected", func(t *testing.T) {
		a := validACECF()
		a.Estado, a.DetalleMotivoRechazo = ecf.ApprovalRejected, `Precio <distinto> & "mal"`
		got, err := a.XML()
		if err != nil {
			t.Fatal(err)
		}
		assertReply(t, "ACECF-rechazo.xml", "ACECF.xsd", got, false)
	})
	t.Run("Invalid", func(t *testing.T) {
		a := &ecf.ACECF{RNCEmisor: "12", ENCF: "E31", MontoTotal: "1180", Estado: ecf.ApprovalRejected, DetalleMotivoRechazo: strings.Repeat("x", 251)}
		_, err := a.XML()
		for _, path := range []string{"ACECF.RNCEmisor", "ACECF.eNCF", "ACECF.FechaEmision", "ACECF.MontoTotal", "ACECF.RNCComprador", "ACECF.DetalleMotivoRechazo", "ACECF.FechaHoraAprobacionComercial"} {
			if !hasDetail(err, path, "") {
				t.Errorf("no detail at %s: %v %+v", path, err, detailsOf(err))
			}
		}
		a = validACECF()
		a.Estado = ecf.ApprovalRejected
		if _, err := a.XML(); !hasDetail(err, "ACECF.DetalleMotivoRechazo", "Required") {
			t.Errorf("rejection without motive: %v", err)
		}
		a.Estado = 3
		if _, err := a.XML(); !hasDetail(err, "ACECF.Estado", "") {
			t.Errorf("Estado 3: %v", err)
		}
	})
}

func TestARECF(t *testing.T) {
	t.Run("Received", func(t *testing.T) {
		got, err := validARECF().XML()
		if err != nil {
			t.Fatal(err)
		}
		assertReply(t, "ARECF.xml", "ARECF.xsd", got, false)
	})
	t.Run("NotReceived", func(t *testing.T) {
		a := validARECF()
		a.Estado, a.CodigoMotivoNoRecibido = ecf.ReceiptNotReceived, ecf.ReasonWrongBuyer
		got, err := a.XML()
		if err != nil {
			t.Fatal(err)
		}
		assertReply(t, "ARECF-no-recibido.xml", "ARECF.xsd", got, false)
	})
	t.Run("Invalid", func(t *testing.T) {
		a := validARECF()
		a.Estado = ecf.ReceiptNotReceived
		if _, err := a.XML(); !hasDetail(err, "ARECF.CodigoMotivoNoRecibido", "Required") {
			t.Errorf("no motive: %v", err)
		}
		a.Estado, a.CodigoMotivoNoRecibido = ecf.ReceiptReceived, ecf.ReasonDuplicate
		if _, err := a.XML(); !hasDetail(err, "ARECF.CodigoMotivoNoRecibido", "absent") {
			t.Errorf("motive when received: %v", err)
		}
		a = &ecf.ARECF{Estado: 2}
		_, err := a.XML()
		for _, path := range []string{"ARECF.RNCEmisor", "ARECF.RNCComprador", "ARECF.eNCF", "ARECF.Estado", "ARECF.FechaHoraAcuseRecibo"} {
			if !hasDetail(err, path, "") {
				t.Errorf("no detail at %s: %+v", path, detailsOf(err))
			}
		}
	})
}

func TestANECF(t *testing.T) {
	got, err := validANECF().XML()
	if err != nil {
		t.Fatal(err)
	}
	assertReply(t, "ANECF.xml", "ANECF.xsd", got, true)
	want := `<Encabezado><Version>1.0</Version><RncEmisor>131793916</RncEmisor><CantidadeNCFAnulados>56</CantidadeNCFAnulados><FechaHoraAnulacioneNCF>03-04-2025 15:04:05</FechaHoraAnulacioneNCF></Encabezado>` +
		`<DetalleAnulacion><Anulacion><NoLinea>1</NoLinea><TipoeCF>31</TipoeCF><TablaRangoSecuenciasAnuladaseNCF><Secuencias><SecuenciaeNCFDesde>E310000000010</SecuenciaeNCFDesde><SecuenciaeNCFHasta>E310000000010</SecuenciaeNCFHasta></Secuencias></TablaRangoSecuenciasAnuladaseNCF><CantidadeNCFAnulados>1</CantidadeNCFAnulados></Anulacion>` +
		`<Anulacion><NoLinea>2</NoLinea><TipoeCF>32</TipoeCF><TablaRangoSecuenciasAnuladaseNCF><Secuencias><SecuenciaeNCFDesde>E320000000001</SecuenciaeNCFDesde><SecuenciaeNCFHasta>E320000000005</SecuenciaeNCFHasta></Secuencias><Secuencias><SecuenciaeNCFDesde>E320000000050</SecuenciaeNCFDesde><SecuenciaeNCFHasta>E320000000099</SecuenciaeNCFHasta></Secuencias></TablaRangoSecuenciasAnuladaseNCF><CantidadeNCFAnulados>55</CantidadeNCFAnulados></Anulacion></DetalleAnulacion>`
	if !bytes.Contains(got, []byte(want)) {
		t.Errorf("got %s\nwant …%s…", got, want)
	}

	t.Run("AllTypes", func(t *testing.T) {
		a := &ecf.ANECF{RNCEmisor: "00112345678", At: actAt}
		for i, typ := range sello.DocumentTypes {
			a.Ranges = append(a.Ranges, ecf.ANECFRange{Type: typ, From: int64(i + 1), To: sello.MaxSequenceNumber / 20})
		}
		got, err := a.XML()
		if err != nil {
			t.Fatal(err)
		}
		assertXSD(t, "ANECF.xsd", withPlaceholderSignature(got))
	})
	t.Run("Invalid", func(t *testing.T) {
		tests := map[string]struct {
			a    ecf.ANECF
			path string
		}{
			"NoRanges": {ecf.ANECF{RNCEmisor: "131793916", At: actAt}, "ANECF.Ranges"},
			"RNC":      {ecf.ANECF{RNCEmisor: "1", At: actAt, Ranges: []ecf.ANECFRange{{"31", 1, 1}}}, "ANECF.RNCEmisor"},
			"NoTime":   {ecf.ANECF{RNCEmisor: "131793916", Ranges: []ecf.ANECFRange{{"31", 1, 1}}}, "ANECF.FechaHoraAnulacioneNCF"},
			"Type":     {ecf.ANECF{RNCEmisor: "131793916", At: actAt, Ranges: []ecf.ANECFRange{{"30", 1, 1}}}, "ANECF.Ranges[0].Type"},
			"From0":    {ecf.ANECF{RNCEmisor: "131793916", At: actAt, Ranges: []ecf.ANECFRange{{"31", 0, 1}}}, "ANECF.Ranges[0].From"},
			"ToBefore": {ecf.ANECF{RNCEmisor: "131793916", At: actAt, Ranges: []ecf.ANECFRange{{"31", 5, 4}}}, "ANECF.Ranges[0].To"},
			"TooBig":   {ecf.ANECF{RNCEmisor: "131793916", At: actAt, Ranges: []ecf.ANECFRange{{"31", 1, sello.MaxSequenceNumber + 1}}}, "ANECF.Ranges[0].To"},
			"Overlap":  {ecf.ANECF{RNCEmisor: "131793916", At: actAt, Ranges: []ecf.ANECFRange{{"31", 5, 9}, {"32", 1, 100}, {"31", 9, 12}}}, "ANECF.Ranges[2]"},
			"Total": {ecf.ANECF{RNCEmisor: "131793916", At: actAt, Ranges: []ecf.ANECFRange{
				{"31", 1, sello.MaxSequenceNumber}, {"32", 1, 1}}}, "ANECF.Ranges"},
		}
		for name, tt := range tests {
			t.Run(name, func(t *testing.T) {
				_, err := tt.a.XML()
				if sello.ErrorCodeOf(err) != sello.CodeValidationFailed || !hasDetail(err, tt.path, "") {
					t.Errorf("want a detail at %s, got %v %+v", tt.path, err, detailsOf(err))
				}
			})
		}
	})
}
