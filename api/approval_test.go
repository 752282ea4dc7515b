package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// mustInbound stores an inbound document of type typ for the fixture's
// tenant (or tenantID) in TesteCF.
func mustInbound(tb testing.TB, f *fixture, tenantID string, typ sello.DocumentType, n int) *sello.InboundDocument {
	tb.Helper()
	encf := fmt.Sprintf("E%s%010d", typ, n)
	return storetest.MustCreateInbound(tb, f.db, &sello.InboundDocument{
		TenantID: tenantID, Environment: sello.EnvTest, Type: typ, ENCF: encf,
		IssuerRNC: "131880681", IssuerName: "Proveedor SRL", BuyerRNC: testRNC,
		IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}, Total: "1180.00",
		XML: []byte("<ECF/>"), Acuse: []byte("<ARECF/>"),
	})
}

func TestCreateApproval(t *testing.T) {
	f := mustFixture(t)
	const path = "/TesteCF/aprobaciones-comerciales"
	body := func(id, estado, motivo string) []byte {
		b, _ := json.Marshal(map[string]string{"inboundDocumentId": id, "estado": estado, "motivo": motivo})
		return b
	}

	t.Run("OK", func(t *testing.T) {
		in := mustInbound(t, f, f.tenant.ID, sello.TypeCreditoFiscal, 1)
		rec := f.do("POST", path, body(in.ID, "rechazado", "Precio distinto al acordado"))
		if rec.Code != http.StatusAccepted {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var got struct {
			OK       bool                   `json:"ok"`
			Approval sello.ApprovalResource `json:"approval"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		a := got.Approval
		if !got.OK || a.ID == "" || a.InboundDocumentID != in.ID || a.Estado != "rechazado" || a.Motivo == nil || *a.Motivo != "Precio distinto al acordado" ||
			a.Status != "pending" || a.Issuer.Status != "pending" || a.DGII.Status != "pending" || a.ENCF != in.ENCF {
			t.Fatalf("approval: got %s", rec.Body)
		}

		t.Run("ErrTwice", func(t *testing.T) {
			rec := f.do("POST", path, body(in.ID, "aprobado", ""))
			wantError(t, rec, http.StatusConflict, "CONFLICT", "was rejected already")
		})
	})

	t.Run("ErrNotApplicable", func(t *testing.T) {
		in := mustInbound(t, f, f.tenant.ID, sello.TypeConsumo, 2)
		wantError(t, f.do("POST", path, body(in.ID, "aprobado", "")), http.StatusUnprocessableEntity, "VALIDATION_FAILED")
	})

	t.Run("ErrMotivo", func(t *testing.T) {
		in := mustInbound(t, f, f.tenant.ID, sello.TypeCreditoFiscal, 3)
		wantError(t, f.do("POST", path, body(in.ID, "rechazado", "")), http.StatusBadRequest, "INVALID_REQUEST", "not valid")
		wantError(t, f.do("POST", path, body(in.ID, "rechazado", strings.Repeat("x", 251))), http.StatusBadRequest, "INVALID_REQUEST", "not valid")
		wantError(t, f.do("POST", path, body(in.ID, "quizas", "")), http.StatusBadRequest, "INVALID_REQUEST", "not valid")
	})

	t.Run("ErrScope", func(t *testing.T) {
		in := mustInbound(t, f, f.tenant.ID, sello.TypeCreditoFiscal, 4)
		key := mustKey(t, f, f.tenant.ID, sello.EnvTest, sello.ScopeCreate, sello.ScopeRead)
		wantError(t, f.doKey(key, "POST", path, body(in.ID, "aprobado", "")), http.StatusForbidden, "INSUFFICIENT_SCOPE", "tenant:admin")
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		wantError(t, f.do("POST", path, body("01976a2b-0000-7000-8000-000000000000", "aprobado", "")), http.StatusNotFound, "NOT_FOUND", "not found")
		other, _ := mustTenant(t, f, "130000002", sello.EnvTest)
		in := mustInbound(t, f, other.ID, sello.TypeCreditoFiscal, 5)
		wantError(t, f.do("POST", path, body(in.ID, "aprobado", "")), http.StatusNotFound, "NOT_FOUND", "not found")
	})
}
