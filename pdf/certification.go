package pdf

import (
	"archive/zip"
	"bytes"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// PrintedRepresentations renders the printed representation (Render) of
// each signed e-CF of a certification run (an RFCE row's full e-CF 32
// included, no ACECF) into a ZIP, one {eNCF}.pdf each, as DGII's step 5
// asks, and returns it with the number of PDFs: the API's
// …/representaciones-impresas and the portal's download. Every entry is
// dated the run's creation, so that two downloads of a finished run are the same
// bytes: ZIP's own (MS-DOS) date has no zone and is written in Dominican
// time (sello.DRZone), which is what an unzip on a Dominican desk shows;
// the exact instant goes in the extended timestamp field as well, which
// unzip tools that know it show in their own zone.
func PrintedRepresentations(run *sello.CertificationRun) ([]byte, int, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := 0
	for _, row := range run.Rows {
		if row.Kind == sello.CertificationACECF || row.SignedAt == nil || row.SecurityCode == "" {
			continue
		}
		d, err := ecf.ReadFields(row.Fields)
		if err != nil {
			return nil, 0, err
		}
		status := sello.StatusSigned
		switch row.State {
		case sello.RowAccepted:
			status = sello.StatusAccepted
		case sello.RowAcceptedConditional:
			status = sello.StatusAcceptedConditional
		case sello.RowRejected:
			status = sello.StatusRejected
		}
		b, err := Render(d, Meta{
			Environment: run.Environment, ENCF: row.ENCF, SecurityCode: row.SecurityCode, SignedAt: *row.SignedAt,
			QRURL: ecf.TimbreURL(run.Environment, d, row.SecurityCode, *row.SignedAt), Status: status,
		})
		if err != nil {
			return nil, 0, err
		}
		f, err := zw.CreateHeader(&zip.FileHeader{
			Name: strings.ToUpper(row.ENCF) + ".pdf", Method: zip.Deflate, Modified: run.CreatedAt.In(sello.DRZone),
		})
		if err != nil {
			return nil, 0, err
		}
		if _, err := f.Write(b); err != nil {
			return nil, 0, err
		}
		n++
	}
	if err := zw.Close(); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), n, nil
}
