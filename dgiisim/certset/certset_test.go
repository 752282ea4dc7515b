package certset_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim/certset"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/testset"
)

var update = flag.Bool("update", false, "rewrite dgiisim/testdata/set-de-pruebas.xlsx")

// DemoRNC is the demo tenant's RNC (cmd/sello's demo), the sample's issuer.
const DemoRNC = "130000001"

// SamplePath is the committed sample workbook.
var SamplePath = filepath.Join("..", "testdata", "set-de-pruebas.xlsx")

// TestSample: the sample has DGII's shape (25 e-CF of all ten types, two
// of type 32 over DOP 250,000; 4 RFCE; 11 ACECF), every e-CF row reads
// into a valid document, and the committed workbook reads back as the
// same rows.
func TestSample(t *testing.T) {
	rows, err := certset.Sample(DemoRNC)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[sello.CertificationKind]int{}
	types := map[string]int{}
	for _, r := range rows {
		kinds[r.Kind]++
		if r.Kind == sello.CertificationACECF {
			if _, err := ecf.ACECFFields(r.Fields, time.Now()); err != nil {
				t.Errorf("ACECF row %d: %v", r.SheetRow, err)
			}
			continue
		}
		d, err := ecf.ReadFields(r.Fields)
		if err != nil {
			t.Fatalf("%s row %d: %v", r.Sheet, r.SheetRow, err)
		}
		if r.Kind == sello.CertificationECF {
			types[string(d.Type())]++
		}
		if d.NeedsRFCE() != (r.Kind == sello.CertificationRFCE) {
			t.Errorf("%s row %d: type %s total %s in the wrong sheet", r.Sheet, r.SheetRow, d.Type(), d.Total())
		}
	}
	if kinds[sello.CertificationECF] != 25 || kinds[sello.CertificationRFCE] != 4 || kinds[sello.CertificationACECF] != 11 || len(types) != 10 || types["32"] != 2 {
		t.Fatalf("shape: %v, types %v", kinds, types)
	}

	t.Run("XSD", func(t *testing.T) { testSampleXSD(t, rows) })

	var buf bytes.Buffer
	if err := certset.Write(&buf, DemoRNC); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(SamplePath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(SamplePath)
	if err != nil {
		t.Fatalf("%v (go generate ./dgiisim/certset writes it)", err)
	}
	defer f.Close()
	got, err := testset.ReadWorkbook(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("the workbook has %d rows; want %d", len(got), len(rows))
	}
	for i := range rows {
		if !reflect.DeepEqual(got[i], rows[i]) {
			t.Fatalf("row %d of the workbook:\n got %+v\nwant %+v\n(go generate ./dgiisim/certset rewrites it)", i+1, got[i], rows[i])
		}
	}
}

// testSampleXSD: every row's XML — the e-CF, the RFCE summary of an RFCE
// row, the ACECF — validates against DGII's XSD (xmllint), an empty
// Signature standing in for the signer's.
func testSampleXSD(t *testing.T, rows []*sello.CertificationRow) {
	at := time.Date(2026, 11, 2, 14, 0, 0, 0, time.UTC)
	for _, r := range rows {
		var xsd string
		var doc []byte
		switch r.Kind {
		case sello.CertificationACECF:
			a, err := ecf.ACECFFields(r.Fields, at)
			if err != nil {
				t.Fatal(err)
			}
			if doc, err = a.XML(); err != nil {
				t.Fatal(err)
			}
			xsd = "ACECF.xsd"
		default:
			d, err := ecf.ReadFields(r.Fields)
			if err != nil {
				t.Fatal(err)
			}
			doc, err = d.XML(at)
			xsd = "e-CF-" + string(d.Type()) + ".xsd"
			if r.Kind == sello.CertificationRFCE {
				doc, err = d.RFCE("AbC1+/")
				xsd = "RFCE-32.xsd"
			}
			if err != nil {
				t.Fatal(err)
			}
			doc = withSignature(doc)
		}
		if out, ok := oracle.Xmllint(t, xsd, doc); !ok {
			t.Errorf("%s row %d against %s:\n%s\n%s", r.Sheet, r.SheetRow, xsd, out, doc)
		}
	}
}

// withSignature appends an empty ds:Signature as the root's last child:
// DGII's XSDs require one.
func withSignature(doc []byte) []byte {
	i := bytes.LastIndex(doc, []byte("</"))
	return append(append(append([]byte{}, doc[:i]...), `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>`...), doc[i:]...)
}
