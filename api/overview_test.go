package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
)

// TestCreateCountsInTheDayTotals: a document created through the API keeps
// the TotalITBIS its totals computed, and counts in Inicio's day totals
// at once (its FechaEmision, type 31, on its way to DGII) with its
// MontoTotal and ITBIS.
func TestCreateCountsInTheDayTotals(t *testing.T) {
	f := mustFixture(t)
	rec := f.do("POST", "/TesteCF/documentos-ecf", apitest.Invoice(testRNC))
	if rec.Code != http.StatusAccepted {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var body struct {
		Document struct {
			ENCF string `json:"encf"`
		} `json:"document"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	doc, err := f.store.FindDocument(t.Context(), f.tenant.ID, sello.EnvTest, body.Document.ENCF)
	if err != nil {
		t.Fatal(err)
	}
	var payload struct {
		ECF struct {
			Encabezado struct {
				Totales struct {
					MontoTotal, TotalITBIS string
				}
			}
		}
	}
	if err := json.Unmarshal(doc.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	totales := payload.ECF.Encabezado.Totales
	if totales.TotalITBIS == "" || doc.ITBIS != totales.TotalITBIS || doc.Total != totales.MontoTotal {
		t.Fatalf("stored: total %s ITBIS %s; the payload's Totales: %+v", doc.Total, doc.ITBIS, totales)
	}
	days, err := f.store.FindIssuedTotals(t.Context(), f.tenant.ID, sello.EnvTest, doc.IssueDate, doc.IssueDate)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Type != sello.TypeCreditoFiscal || days[0].State != sello.IssuedInProcess || days[0].Count != 1 ||
		days[0].Total.StringFixed(2) != doc.Total || days[0].ITBIS.StringFixed(2) != doc.ITBIS {
		t.Errorf("the day's totals: %+v, want the document's %s and %s", days, doc.Total, doc.ITBIS)
	}
}
