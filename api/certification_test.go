package api_test

import (
	"archive/zip"
	"bytes"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/testset"
)

// TestCertificationPDFsDated: every entry of a run's printed
// representations' ZIP is dated the run's creation, the instant in the
// extended timestamp and the ZIP's zone-less date in Dominican time (not
// 1980, ZIP's zero).
func TestCertificationPDFsDated(t *testing.T) {
	f := mustFixture(t)
	ctx := t.Context()
	key := mustKey(t, f, f.tenant.ID, sello.EnvCert, sello.ScopeAdmin)

	wb, err := os.Open("../dgiisim/testdata/set-de-pruebas.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	rows, err := testset.ReadWorkbook(wb)
	if err != nil {
		t.Fatal(err)
	}
	// 02:30:15 UTC on the 27th is 22:30:15 on the 26th in Santo Domingo.
	created := time.Date(2026, 11, 27, 2, 30, 15, 0, time.UTC)
	run, err := sello.NewCertificationRun(f.tenant.ID, sello.EnvCert, rows[:2], created)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.store.CreateCertificationRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	signed := created.Add(3 * time.Hour) // later than the run: not the entries' date
	if run.Rows[0].Kind == sello.CertificationACECF {
		t.Fatal("the sample's first row is an ACECF: want an e-CF")
	}
	u := sello.CertificationRowUpdate{State: sello.RowSigned, SecurityCode: "AbC123", SignedAt: &signed, XML: []byte("<ECF/>")}
	if _, err := f.store.RecordCertificationRow(ctx, f.tenant.ID, sello.EnvCert, run.ID, 1, u, signed); err != nil {
		t.Fatal(err)
	}

	resp, body := call(t, f, key, "GET", "/CerteCF/certificacion/pruebas/"+run.ID+"/representaciones-impresas", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != run.Rows[0].ENCF+".pdf" {
		t.Fatalf("%d entries, want %s.pdf (the one signed row)", len(zr.File), run.Rows[0].ENCF)
	}
	for _, e := range zr.File {
		if got := e.Modified; !got.Equal(created) {
			t.Errorf("%s dated %s, want the run's creation %s", e.Name, got, created)
		}
		if got, want := e.Modified.Format("2006-01-02 15:04:05 -0700"), "2026-11-26 22:30:15 -0400"; got != want {
			t.Errorf("%s's ZIP date %s, want %s (Dominican time)", e.Name, got, want)
		}
	}
}
