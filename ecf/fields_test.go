package ecf_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// checkedSample is testdata/valid/<name>.json decoded, checked and
// numbered as its e-NCF says.
func checkedSample(tb testing.TB, name string) *ecf.Document {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "valid", name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	d, err := ecf.Decode(b)
	if err != nil {
		tb.Fatal(err)
	}
	if err := ecf.Check(d, ecf.Issuance{TenantRNC: d.ECF.Encabezado.Emisor.RNCEmisor, Now: time.Date(2025, 6, 1, 12, 0, 0, 0, sello.DRZone)}); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return d
}

// TestReadFields: every valid sample, flattened into a row of DGII's test
// set and read back, writes the same XML, which DGII's XSD accepts.
func TestReadFields(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, typ := range sello.DocumentTypes {
		name := "E" + string(typ)
		t.Run(name, func(t *testing.T) {
			d := checkedSample(t, name)
			want, err := d.XML(at)
			if err != nil {
				t.Fatal(err)
			}
			fields := d.Fields()
			if fields["ENCF"] == "" || fields["NombreItem[1]"] == "" {
				t.Fatalf("fields lack ENCF or NombreItem[1]: %v", fields)
			}
			back, err := ecf.ReadFields(fields)
			if err != nil {
				t.Fatal(err)
			}
			got, err := back.XML(at)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("read back:\n got %s\nwant %s", got, want)
			}
			assertXSD(t, "e-CF-"+string(typ)+".xsd", withPlaceholderSignature(got))
		})
	}

	t.Run("UnknownHeader", func(t *testing.T) {
		fields := checkedSample(t, "E31").Fields()
		fields["NombreItm[1]"] = "x"
		fields["NombreItem"] = "no index"
		_, err := ecf.ReadFields(fields)
		if sello.ErrorCodeOf(err) != sello.CodeValidationFailed || !strings.Contains(describe(err), "fields.NombreItm[1]") || !strings.Contains(describe(err), "fields.NombreItem:") {
			t.Fatalf("got %v; want VALIDATION_FAILED naming both headers", err)
		}
	})

	t.Run("SignatureColumnsIgnored", func(t *testing.T) {
		d := checkedSample(t, "E32")
		want, err := d.XML(at)
		if err != nil {
			t.Fatal(err)
		}
		fields := d.Fields()
		fields["FechaHoraFirma"], fields["CodigoSeguridadeCF"], fields["CasoPrueba"] = "01-01-2020 10:00:00", "ZZZZZZ", "12"
		back, err := ecf.ReadFields(fields)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := back.XML(at); string(got) != string(want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})

	t.Run("MissingRequired", func(t *testing.T) {
		fields := checkedSample(t, "E31").Fields()
		delete(fields, "MontoItem[1]")
		if _, err := ecf.ReadFields(fields); err == nil || !strings.Contains(describe(err), "MontoItem") {
			t.Fatalf("got %v; want the missing MontoItem named", err)
		}
	})

	t.Run("ACECF", func(t *testing.T) {
		a, err := ecf.ACECFFields(map[string]string{"RNCEmisor": "131880681", "ENCF": "E310000000005", "FechaEmision": "01-04-2025",
			"MontoTotal": "1180", "RNCComprador": "130000001", "Estado": "2", "DetalleMotivoRechazo": "Precio incorrecto", "CasoPrueba": "7"}, at)
		if err != nil {
			t.Fatal(err)
		}
		b, err := a.XML()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "<MontoTotal>1180.00</MontoTotal>") {
			t.Fatalf("MontoTotal not two decimals: %s", b)
		}
		assertXSD(t, "ACECF.xsd", b)
		if _, err := ecf.ACECFFields(map[string]string{"Estado": "3", "Otro": "x"}, at); err == nil || !strings.Contains(describe(err), "fields.Otro") {
			t.Fatalf("got %v; want the unknown header named", err)
		}
	})
}

// describe is err with its details' paths and messages.
func describe(err error) string {
	var b strings.Builder
	b.WriteString(err.Error())
	var e *sello.Error
	if errors.As(err, &e) {
		for _, d := range e.Details {
			b.WriteString("; " + d.Path + ": " + d.Message)
		}
	}
	return b.String()
}

// FuzzReadFields: a sample row with one more cell of any header and value
// reads into a document or a VALIDATION_FAILED, never a panic; a document
// read writes XML.
func FuzzReadFields(f *testing.F) {
	f.Add("NombreItem[2]", "Otro")
	f.Add("TipoCodigo[1][1]", "INT")
	f.Add("TelefonoEmisor[3]", "809-555-0100")
	f.Add("NumeroLineaDoR[1]", "1")
	f.Add("MontoTotal", "-1")
	f.Add("ENCF[99999]", "x")
	f.Fuzz(func(t *testing.T, header, value string) {
		fields := checkedSample(t, "E31").Fields()
		fields[header] = value
		d, err := ecf.ReadFields(fields)
		if err != nil {
			if sello.ErrorCodeOf(err) != sello.CodeValidationFailed {
				t.Fatalf("%q=%q: %v", header, value, err)
			}
			return
		}
		if _, err := d.XML(time.Now()); err != nil {
			t.Fatalf("%q=%q: read but not written: %v", header, value, err)
		}
	})
}
