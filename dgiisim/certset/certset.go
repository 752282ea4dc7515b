// Package certset writes the simulator's sample of DGII's certification
// test set (FACTS §5.2): a workbook in DGII's layout — sheets ECF, RFCE and
// ACECF, headers the XML element names — with DGII's observed shape of 25
// e-CF (all ten types, two type 32 of DOP 250,000 or more), 4 RFCE and 11
// ACECF rows, issued by the demo tenant, so that a whole certification run
// works offline against the simulator. It is written by the project from
// FACTS' description, not copied from DGII.
//
// go generate (or go test -run TestSample -update) rewrites
// dgiisim/testdata/set-de-pruebas.xlsx.
package certset

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/testset"
)

//go:generate go test -run TestSample -update

//go:embed templates/*.json
var templates embed.FS

// The sample's dates: issued on IssueDate, sequences authorized until
// SequenceExpiry.
const (
	IssueDate      = "02-11-2026"
	SequenceExpiry = "31-12-2027"
	dueDate        = "02-12-2026"
)

// ECFCounts is how many e-CF of each type the sample has: 25 in all, the
// two of type 32 for DOP 250,000 or more.
var ECFCounts = []struct {
	Type  sello.DocumentType
	Count int
}{
	{sello.TypeCreditoFiscal, 4}, {sello.TypeConsumo, 2}, {sello.TypeNotaDebito, 3}, {sello.TypeNotaCredito, 3},
	{sello.TypeCompras, 2}, {sello.TypeGastosMenores, 2}, {sello.TypeRegimenesEspeciales, 2},
	{sello.TypeGubernamental, 3}, {sello.TypeExportaciones, 2}, {sello.TypePagosExterior, 2},
}

// RFCECount and ACECFCount are the sample's other rows.
const (
	RFCECount  = 4
	ACECFCount = 11
)

// Issuers of the approved e-CFs: taxpayers of the simulator's directory,
// whose documents it takes approvals of without having seen them.
var approvalIssuers = []string{"131880681", "999000010", "999000011"}

// Sample returns the sample set's rows for the issuer rnc (the taxpayer
// being certified), in the order they are sent.
func Sample(rnc string) ([]*sello.CertificationRow, error) {
	var rows []*sello.CertificationRow
	next := map[sello.DocumentType]int64{}
	add := func(sheet string, kind sello.CertificationKind, t sello.DocumentType, big bool) error {
		next[t]++
		n := len(rows) + 1
		fields, err := document(rnc, t, next[t], n, big)
		if err != nil {
			return fmt.Errorf("%s row %d: %w", sheet, n, err)
		}
		rows = append(rows, &sello.CertificationRow{Sheet: sheet, Kind: kind, ENCF: fields["ENCF"], Fields: fields})
		return nil
	}
	for _, c := range ECFCounts {
		for range c.Count {
			if err := add("ECF", sello.CertificationECF, c.Type, c.Type == sello.TypeConsumo); err != nil {
				return nil, err
			}
		}
	}
	for range RFCECount {
		if err := add("RFCE", sello.CertificationRFCE, sello.TypeConsumo, false); err != nil {
			return nil, err
		}
	}
	for i := range ACECFCount {
		f := map[string]string{
			"Version": "1.0", "RNCEmisor": approvalIssuers[i%len(approvalIssuers)],
			"ENCF":         sello.ENCF{Type: []sello.DocumentType{sello.TypeCreditoFiscal, sello.TypeNotaDebito, sello.TypeNotaCredito, sello.TypeRegimenesEspeciales, sello.TypeGubernamental}[i%5], Number: int64(1000 + i)}.String(),
			"FechaEmision": IssueDate, "MontoTotal": fmt.Sprintf("%d.00", 1180*(i+1)), "RNCComprador": rnc, "Estado": "1",
		}
		if i%4 == 3 {
			f["Estado"], f["DetalleMotivoRechazo"] = "2", "Mercancía no recibida conforme a la orden de compra."
		}
		rows = append(rows, &sello.CertificationRow{Sheet: "ACECF", Kind: sello.CertificationACECF, ENCF: f["ENCF"], Fields: f})
	}
	// Each sheet's rows count from 2 (the header is row 1).
	per := map[string]int{}
	for _, r := range rows {
		per[r.Sheet]++
		r.SheetRow = per[r.Sheet] + 1
	}
	return rows, nil
}

// document returns the fields of e-CF number seq of type t, the n-th of
// the set: its template with the issuer, numbers and dates of the sample,
// a quantity that varies with n, totals computed by DGII's rules.
func document(rnc string, t sello.DocumentType, seq int64, n int, big bool) (map[string]string, error) {
	b, err := templates.ReadFile("templates/E" + string(t) + ".json")
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	e := m["ECF"].(map[string]any)
	enc := e["Encabezado"].(map[string]any)
	id := enc["IdDoc"].(map[string]any)
	id["eNCF"] = sello.ENCF{Type: t, Number: seq}.String()
	if _, ok := id["FechaVencimientoSecuencia"]; ok {
		id["FechaVencimientoSecuencia"] = SequenceExpiry
	}
	if _, ok := id["FechaLimitePago"]; ok {
		id["FechaLimitePago"] = dueDate
	}
	em := enc["Emisor"].(map[string]any)
	em["RNCEmisor"], em["RazonSocialEmisor"], em["FechaEmision"] = rnc, "Sello Demo SRL", IssueDate
	item := e["DetallesItems"].(map[string]any)["Item"].([]any)[0].(map[string]any)
	item["CantidadItem"] = 1 + n%4
	item["NombreItem"] = fmt.Sprintf("Artículo de prueba %d", n)
	if big {
		item["PrecioUnitarioItem"] = "295000.00"
		enc["Comprador"] = map[string]any{"RNCComprador": "131880681", "RazonSocialComprador": "DGII Emisor Receptor de Pruebas"}
	}
	if ref, ok := e["InformacionReferencia"].(map[string]any); ok {
		ref["NCFModificado"] = sello.ENCF{Type: sello.TypeCreditoFiscal, Number: 1}.String()
		ref["FechaNCFModificado"] = IssueDate
	}
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	d, err := ecf.Decode(body)
	if err != nil {
		return nil, err
	}
	issued, _ := time.ParseInLocation("02-01-2006", IssueDate, sello.DRZone)
	if err := ecf.Check(d, ecf.Issuance{TenantRNC: rnc, Now: issued.Add(36 * time.Hour)}); err != nil {
		return nil, err
	}
	return d.Fields(), nil
}

// Write writes the sample set for rnc as DGII's workbook.
func Write(w io.Writer, rnc string) error {
	rows, err := Sample(rnc)
	if err != nil {
		return err
	}
	return testset.Write(w, rows, ecf.CompareHeaders)
}
