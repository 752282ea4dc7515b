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
// tenant (or tenantID) in TesteCF, which DGII confirmed.
func mustInbound(tb testing.TB, f *fixture, tenantID string, typ sello.DocumentType, n int) *sello.InboundDocument {
	tb.Helper()
	d := mustInboundUnconfirmed(tb, f, tenantID, typ, n)
	return storetest.MustRecordDGII(tb, f.db, tenantID, sello.EnvTest, d.ID, 1, "Aceptado")
}

// mustInboundUnconfirmed is mustInbound before DGII's answer.
func mustInboundUnconfirmed(tb testing.TB, f *fixture, tenantID string, typ sello.DocumentType, n int) *sello.InboundDocument {
	tb.Helper()
	encf := fmt.Sprintf("E%s%010d", typ, n)
	return storetest.MustCreateInbound(tb, f.db, &sello.InboundDocument{
		TenantID: tenantID, Environment: sello.EnvTest, Type: typ, ENCF: encf,
		IssuerRNC: "131880681", IssuerName: "Proveedor SRL", BuyerRNC: testRNC,
		IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}, Total: "1180.00",
		XML: []byte("<ECF>" + encf + "</ECF>"), Acuse: []byte("<ARECF/>"), SecurityCode: "Ab12Cd",
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

	// DGII takes approvals only of e-CFs it accepted, and a document it
	// has not confirmed may be a forgery: 422 naming why.
	t.Run("ErrUnconfirmed", func(t *testing.T) {
		for i, c := range []struct {
			codigo int // DGII's answer, -1 for none yet
			want   string
		}{
			{-1, "DGII has not confirmed it yet (dgii.status pending)"},
			{0, "DGII does not know it (dgii.status not_found): it has no accepted e-CF E310000000011 of RNC 131880681 for RNC " + testRNC + " with security code Ab12Cd"},
			{2, "DGII rejected it (dgii.status rejected)"},
		} {
			in := mustInboundUnconfirmed(t, f, f.tenant.ID, sello.TypeCreditoFiscal, 10+i)
			if c.codigo >= 0 {
				storetest.MustRecordDGII(t, f.db, f.tenant.ID, sello.EnvTest, in.ID, c.codigo, "")
			}
			wantError(t, f.do("POST", path, body(in.ID, "aprobado", "")), http.StatusUnprocessableEntity, "VALIDATION_FAILED", in.ID, c.want)
		}
		// Refuted: DGII accepted another document under the e-NCF.
		forged := mustInboundUnconfirmed(t, f, f.tenant.ID, sello.TypeCreditoFiscal, 20)
		genuine := storetest.MustCreateInbound(t, f.db, &sello.InboundDocument{
			TenantID: f.tenant.ID, Environment: sello.EnvTest, Type: forged.Type, ENCF: forged.ENCF,
			IssuerRNC: forged.IssuerRNC, IssuerName: forged.IssuerName, BuyerRNC: testRNC, IssueDate: forged.IssueDate, Total: "117997.64",
			XML: []byte("<ECF>genuine</ECF>"), Acuse: []byte("<ARECF/>"), SecurityCode: "G3nu1n",
		})
		storetest.MustRecordDGII(t, f.db, f.tenant.ID, sello.EnvTest, genuine.ID, 1, "Aceptado")
		wantError(t, f.do("POST", path, body(forged.ID, "rechazado", "Factura falsa")), http.StatusUnprocessableEntity, "VALIDATION_FAILED",
			"DGII accepted another document under E310000000020 of RNC 131880681 (dgii.status refuted)")
		if rec := f.do("POST", path, body(genuine.ID, "aprobado", "")); rec.Code != http.StatusAccepted {
			t.Fatalf("the genuine one: %d %s", rec.Code, rec.Body)
		}
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

// TestReadApprovals reads the tenant's approvals back: the list, newest
// first in the list envelope, and one by id, each with its legs' outcome;
// another tenant's or environment's never.
func TestReadApprovals(t *testing.T) {
	f := mustFixture(t)
	const path = "/TesteCF/aprobaciones-comerciales"
	var ids []string // oldest first
	for i := range 3 {
		in := mustInbound(t, f, f.tenant.ID, sello.TypeCreditoFiscal, 10+i)
		a, err := f.db.ApproveInboundDocument(t.Context(), f.tenant.ID, sello.EnvTest, sello.ApprovalRequest{InboundDocumentID: in.ID, Estado: sello.EstadoAprobado})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	first, err := f.db.FindApproval(t.Context(), f.tenant.ID, sello.EnvTest, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.RecordApprovalOutcome(t.Context(), f.tenant.ID, sello.EnvTest, first.InboundDocumentID, sello.ApprovalOutcome{
		Issuer: &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "receiver: aprobacioncomercial: HTTP 400"},
		DGII:   &sello.ApprovalLeg{Status: sello.ApprovalSendSent, Answer: sello.NewDGIITextResult("1", "Aprobación comercial aprobada", nil)},
	}); err != nil {
		t.Fatal(err)
	}
	type page struct {
		Data       []sello.ApprovalResource `json:"data"`
		HasMore    bool                     `json:"hasMore"`
		NextCursor *string                  `json:"nextCursor"`
	}
	list := func(t *testing.T, key, query string) page {
		t.Helper()
		resp, body := call(t, f, key, "GET", path+query, nil)
		var p page
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &p) != nil {
			t.Fatalf("GET %s: %d %s", query, resp.StatusCode, body)
		}
		return p
	}

	t.Run("List", func(t *testing.T) {
		var got []string
		query := "?limit=2"
		for range 3 {
			p := list(t, f.key, query)
			for _, a := range p.Data {
				got = append(got, a.ID)
			}
			if !p.HasMore {
				if p.NextCursor != nil {
					t.Fatalf("last page: nextCursor %q, want null", *p.NextCursor)
				}
				break
			}
			query = "?limit=2&cursor=" + *p.NextCursor
		}
		if want := []string{ids[2], ids[1], ids[0]}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("listed %v, want %v (newest first)", got, want)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		if p := list(t, f.key, "?status=failed"); len(p.Data) != 1 || p.Data[0].ID != ids[0] {
			t.Fatalf("status=failed: %+v, want %s", p.Data, ids[0])
		}
		if p := list(t, f.key, "?inboundDocumentId="+first.InboundDocumentID); len(p.Data) != 1 || p.Data[0].ID != ids[0] {
			t.Fatalf("inboundDocumentId: %+v, want %s", p.Data, ids[0])
		}
	})
	t.Run("Get", func(t *testing.T) {
		resp, body := call(t, f, f.key, "GET", path+"/"+ids[0], nil)
		var got struct{ Approval sello.ApprovalResource }
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
		a := got.Approval
		if a.ID != ids[0] || a.Status != sello.ApprovalSendFailed || a.Issuer.Status != sello.ApprovalSendFailed || a.Issuer.Error == nil ||
			a.Issuer.Answer != nil || a.DGII.Status != sello.ApprovalSendSent || a.DGII.Error != nil ||
			a.DGII.Answer == nil || a.DGII.Answer.Codigo == nil || *a.DGII.Answer.Codigo != 1 {
			t.Fatalf("approval %s", body)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		resp, body := call(t, f, f.key, "GET", path+"/"+first.InboundDocumentID, nil)
		wantCallError(t, resp, body, http.StatusNotFound, sello.CodeNotFound, "not found")
	})
	t.Run("Isolation", func(t *testing.T) {
		_, key := mustTenant(t, f, "130000003", sello.EnvTest)
		if p := list(t, key, ""); len(p.Data) != 0 {
			t.Fatalf("another tenant lists %+v", p.Data)
		}
		resp, body := call(t, f, key, "GET", path+"/"+ids[0], nil)
		wantCallError(t, resp, body, http.StatusNotFound, sello.CodeNotFound)
		certKey := mustKey(t, f, f.tenant.ID, sello.EnvCert, sello.Scopes...)
		resp, body = call(t, f, certKey, "GET", "/CerteCF/aprobaciones-comerciales/"+ids[0], nil)
		wantCallError(t, resp, body, http.StatusNotFound, sello.CodeNotFound)
	})
	t.Run("ErrScope", func(t *testing.T) {
		key := mustKey(t, f, f.tenant.ID, sello.EnvTest, sello.ScopeRead)
		resp, body := call(t, f, key, "GET", path, nil)
		wantCallError(t, resp, body, http.StatusForbidden, sello.CodeInsufficientScope, "tenant:admin")
	})
	t.Run("ErrQuery", func(t *testing.T) {
		for _, q := range []string{"?status=sending", "?limit=0", "?cursor=nonsense", "?estado=aprobado"} {
			resp, body := call(t, f, f.key, "GET", path+q, nil)
			wantCallError(t, resp, body, http.StatusBadRequest, sello.CodeInvalidRequest)
		}
	})
}
