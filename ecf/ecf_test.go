package ecf_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// testIssuance is the context of every fixture: the demo tenant, the day
// after the fixtures' FechaEmision.
var testIssuance = ecf.Issuance{TenantRNC: "131793916", Now: time.Date(2025, 4, 2, 12, 0, 0, 0, time.UTC)}

// MustFixture decodes testdata/valid/E<type>.json.
func MustFixture(tb testing.TB, typ string) *ecf.Document {
	tb.Helper()
	return MustDecode(tb, MustRead(tb, filepath.Join("testdata", "valid", "E"+typ+".json")))
}

func MustRead(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func MustDecode(tb testing.TB, body []byte) *ecf.Document {
	tb.Helper()
	d, err := ecf.Decode(body)
	if err != nil {
		tb.Fatalf("Decode: %v %v", err, detailsOf(err))
	}
	return d
}

// detailsOf returns the details of a *sello.Error, or nil.
func detailsOf(err error) []sello.ErrorDetail {
	var e *sello.Error
	if errors.As(err, &e) {
		return e.Details
	}
	return nil
}

// hasDetail reports whether err has a detail at path whose message contains sub.
func hasDetail(err error, path, sub string) bool {
	for _, d := range detailsOf(err) {
		if d.Path == path && strings.Contains(d.Message, sub) {
			return true
		}
	}
	return false
}

func marshal(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestCheck_ValidFixtures(t *testing.T) {
	// want: Totales after Check, hand-computed.
	tests := map[string]string{
		"31": `{"MontoGravadoTotal":"1000.00","MontoGravadoI1":"1000.00","ITBIS1":"18","TotalITBIS":"180.00","TotalITBIS1":"180.00","MontoTotal":"1180.00"}`,
		// IndicadorMontoGravado 1: 118.00 includes ITBIS, base 118 / 1.18.
		"32": `{"MontoGravadoTotal":"100.00","MontoGravadoI1":"100.00","ITBIS1":"18","TotalITBIS":"18.00","TotalITBIS1":"18.00","MontoTotal":"118.00"}`,
		"33": `{"MontoGravadoTotal":"100.00","MontoGravadoI2":"100.00","ITBIS2":"16","TotalITBIS":"16.00","TotalITBIS2":"16.00","MontoTotal":"116.00"}`,
		"34": `{"MontoExento":"250.00","MontoTotal":"250.00"}`,
		"41": `{"MontoGravadoTotal":"1000.00","MontoGravadoI1":"1000.00","ITBIS1":"18","TotalITBIS":"180.00","TotalITBIS1":"180.00","MontoTotal":"1180.00","TotalITBISRetenido":"180.00","TotalISRRetencion":"100.00"}`,
		"43": `{"MontoExento":"350.00","MontoTotal":"350.00"}`,
		"44": `{"MontoExento":"3600.00","MontoTotal":"3600.00"}`,
		// Mixed: 5 × 200 at 18% and one non-billable line of 50.
		"45": `{"MontoGravadoTotal":"1000.00","MontoGravadoI1":"1000.00","ITBIS1":"18","TotalITBIS":"180.00","TotalITBIS1":"180.00","MontoTotal":"1180.00","MontoNoFacturable":"50.00"}`,
		"46": `{"MontoGravadoTotal":"20000.00","MontoGravadoI3":"20000.00","ITBIS3":"0","TotalITBIS":"0.00","TotalITBIS3":"0.00","MontoTotal":"20000.00"}`,
		"47": `{"MontoExento":"5000.00","MontoTotal":"5000.00","TotalISRRetencion":"1350.00"}`,
	}
	for _, typ := range sello.DocumentTypes {
		t.Run("E"+string(typ), func(t *testing.T) {
			d := MustFixture(t, string(typ))
			if err := ecf.Check(d, testIssuance); err != nil {
				t.Fatalf("Check: %v %+v", err, detailsOf(err))
			}
			if got, want := marshal(t, d.ECF.Encabezado.Totales), tests[string(typ)]; got != want {
				t.Errorf("Totales:\n got %s\nwant %s", got, want)
			}
			if got, want := d.Type(), typ; got != want {
				t.Errorf("Type() = %q, want %q", got, want)
			}
			if got, want := d.ENCF(), "E"+string(typ)+"0000000001"; got != want {
				t.Errorf("ENCF() = %q, want %q", got, want)
			}
			if got, want := d.IssueDate(), (sello.Date{Year: 2025, Month: 4, Day: 1}); got != want {
				t.Errorf("IssueDate() = %v, want %v", got, want)
			}
			// Checking the completed document again changes nothing.
			before := marshal(t, d)
			if err := ecf.Check(d, testIssuance); err != nil {
				t.Fatalf("second Check: %v %+v", err, detailsOf(err))
			}
			if got := marshal(t, d); got != before {
				t.Errorf("second Check changed the document:\n%s\n%s", before, got)
			}
		})
	}
}
