package pdf

import (
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

func TestAmount(t *testing.T) {
	tests := map[string]string{
		"0":                   "0.00",
		"1180":                "1,180.00",
		"999.99":              "999.99",
		"1000.5":              "1,000.50",
		"-3.25":               "-3.25",
		"-1234567.891":        "-1,234,567.891",
		"12.3456":             "12.3456",
		"100000":              "100,000.00",
		"9999999999999999.99": "9,999,999,999,999,999.99",
	}
	for in, want := range tests {
		if got := Amount(ecf.MustDecimal(in)); got != want {
			t.Errorf("Amount(%s) = %q, want %q", in, got, want)
		}
	}
	if got, want := Money(ecf.MustDecimal("1180")), "RD$ 1,180.00"; got != want {
		t.Errorf("Money = %q, want %q", got, want)
	}
	if Amount(nil) != "" || Money(nil) != "" {
		t.Error("nil amount should print as empty")
	}
}

func TestQuantity(t *testing.T) {
	for in, want := range map[string]string{"2": "2", "2.00": "2", "1.50": "1.5", "1200": "1,200", "0.125": "0.125"} {
		if got := quantity(ecf.MustDecimal(in)); got != want {
			t.Errorf("quantity(%s) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"18": "18%", "0": "0%", "2.50": "2.5%", "10.00": "10%"} {
		if got := rate(in); got != want {
			t.Errorf("rate(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestTypeName(t *testing.T) {
	for _, typ := range sello.DocumentTypes {
		if n := TypeName(typ); n == "" || !strings.Contains(n, "Electr") {
			t.Errorf("TypeName(%s) = %q", typ, n)
		}
	}
	if got, want := TypeName(sello.TypeCreditoFiscal), "Factura de Crédito Fiscal Electrónica"; got != want {
		t.Errorf("TypeName(31) = %q, want %q", got, want)
	}
}

func TestWords(t *testing.T) {
	for code, want := range map[ecf.Code]string{
		"010000": "DISTRITO NACIONAL",
		"010100": "SANTO DOMINGO DE GUZMÁN",
		"020107": "DOÑA EMMA BALAGUER VIUDA VALLEJO",
		"250000": "SANTIAGO",
		"999999": "999999",
	} {
		if got := placeName(code); got != want {
			t.Errorf("placeName(%s) = %q, want %q", code, got, want)
		}
	}
	if got := len(placeNames); got != 582 {
		t.Errorf("%d places, want DGII's 582", got)
	}
	for code, want := range map[ecf.Code]string{"43": "Unidad", "12": "Día", "62": "Onzas troy", "63": "63", "x": "x"} {
		if got := unitName(code); got != want {
			t.Errorf("unitName(%s) = %q, want %q", code, got, want)
		}
	}
}

func TestCP1252(t *testing.T) {
	for in, want := range map[string]string{
		"plain":        "plain",
		"áéíóú ñÑ ü¿¡": "\xe1\xe9\xed\xf3\xfa \xf1\xd1 \xfc\xbf\xa1",
		"a — b “c” €5": "a \x97 b \x93c\x94 \x805",
		"漢字 ő":         "?? ?",
	} {
		if got := cp1252(in); got != want {
			t.Errorf("cp1252(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEncodeQR(t *testing.T) {
	// DGII's example URL (FACTS §1.11) is 201 bytes: past version 8's 192 at
	// level L, so version 9.
	dgii := "https://ecf.dgii.gov.do/testecf/consultatimbre?rncemisor=130000001&rnccomprador=130000002&encf=e310000000001&fechaemision=10-10-2020&montototal=02.11&fechafirma=10-10-2020%2009:00:00&codigoseguridad=dcp79q"
	tests := []struct {
		n, want int
	}{
		{100, 8}, // level Q
		{150, 8}, // level M
		{190, 8}, // level L
		{len(dgii), 9},
	}
	for _, tt := range tests {
		s := strings.Repeat("a", tt.n)
		if tt.n == len(dgii) {
			s = dgii
		}
		q, err := encodeQR(s, qrSymbolMM)
		if err != nil {
			t.Fatal(err)
		}
		if q.version != tt.want {
			t.Errorf("%d bytes: version %d, want %d", tt.n, q.version, tt.want)
		}
		if got, want := q.modules, 17+4*q.version; got != want {
			t.Errorf("%d modules, want %d", got, want)
		}
		// DGII's 3 mm margin at qrSymbolMM.
		if margin := qrSymbolMM * float64(q.quiet) / float64(q.modules); margin < qrMarginMM || q.quiet < qrQuiet {
			t.Errorf("quiet zone %d modules = %.2f mm, want ≥ %v mm and ≥ %d modules", q.quiet, margin, qrMarginMM, qrQuiet)
		}
	}
	if _, err := encodeQR(strings.Repeat("a", 3000), qrSymbolMM); err == nil {
		t.Error("3000 bytes encoded, want an error")
	}
}
