package api_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

const aprobacion = "/TesteCF/receptor/" + testRNC + "/fe/aprobacioncomercial/api/ecf"

// issuedDocument is a type-31 document the fixture's tenant issued to the
// supplier's RNC (the buyer here), numbered n and accepted by DGII.
func (f *receiverFixture) issuedDocument(tb testing.TB, n int64) *sello.Document {
	tb.Helper()
	return f.issuedDocumentIn(tb, sello.EnvTest, n)
}

// issuedDocumentIn is issuedDocument in env.
func (f *receiverFixture) issuedDocumentIn(tb testing.TB, env sello.Environment, n int64) *sello.Document {
	tb.Helper()
	ctx := tb.Context()
	if n == 1 {
		if err := f.store.AddSequence(ctx, &sello.Sequence{TenantID: f.tenant.ID, Environment: env, Type: sello.TypeCreditoFiscal, From: 1, To: 100}); err != nil {
			tb.Fatal(err)
		}
	}
	doc, _, err := f.store.CreateDocument(ctx, sello.DocumentDraft{
		TenantID: f.tenant.ID, Environment: env, Type: sello.TypeCreditoFiscal,
		Prepare: func(e sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			return &sello.PreparedDocument{Payload: []byte(`{}`), Total: "1180.00", BuyerRNC: supplierRNC,
				IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}}, nil
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	doc, err = f.store.UpdateDocument(ctx, f.tenant.ID, env, doc.ID, sello.DocumentChange{Status: sello.StatusAccepted})
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// acecf is the buyer's ACECF on doc (rejected when reason is set), dated
// now (to the second), signed by the supplier after edit changes it.
func (f *receiverFixture) acecf(tb testing.TB, doc *sello.Document, reason string, edit func(a *ecf.ACECF)) []byte {
	tb.Helper()
	return f.acecfBy(tb, f.supplier, doc, reason, edit)
}

// acecfBy is acecf signed by signer.
func (f *receiverFixture) acecfBy(tb testing.TB, signer *xmldsig.Signer, doc *sello.Document, reason string, edit func(a *ecf.ACECF)) []byte {
	tb.Helper()
	a := &ecf.ACECF{
		RNCEmisor: testRNC, ENCF: doc.ENCF, FechaEmision: doc.IssueDate, MontoTotal: doc.Total,
		RNCComprador: supplierRNC, Estado: ecf.ApprovalAccepted, At: f.clock.Now().Truncate(time.Second),
	}
	if reason != "" {
		a.Estado, a.DetalleMotivoRechazo = ecf.ApprovalRejected, reason
	}
	if edit != nil {
		edit(a)
	}
	x, err := a.XML()
	if err != nil {
		tb.Fatal(err)
	}
	signed, err := signer.Sign(x)
	if err != nil {
		tb.Fatal(err)
	}
	return signed
}

// postApproval posts an ACECF named {RNCComprador}{eNCF}.xml.
func (f *receiverFixture) postApproval(tb testing.TB, path, token string, doc []byte) *httptest.ResponseRecorder {
	tb.Helper()
	body, ct := upload(tb, supplierRNC+encfOf(doc)+".xml", doc)
	return f.raw(path, token, ct, body)
}

// wantStatus fails unless rec has status and its body contains every one
// of substrs.
func wantStatus(tb testing.TB, rec *httptest.ResponseRecorder, status int, substrs ...string) {
	tb.Helper()
	if rec.Code != status {
		tb.Fatalf("got %d %s, want %d", rec.Code, rec.Body, status)
	}
	for _, s := range substrs {
		if !strings.Contains(rec.Body.String(), s) {
			tb.Errorf("body %s: want it to contain %q", rec.Body, s)
		}
	}
}

func TestAprobacionComercial(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1)
		x := f.acecf(t, doc, "", nil)
		rec := f.postApproval(t, strings.Replace(aprobacion, "/aprobacioncomercial/", "/AprobacionComercial/", 1), "", x)
		wantStatus(t, rec, 200)
		var got struct {
			OK                 bool
			ENCF               string
			CommercialApproval map[string]any
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || !got.OK || got.ENCF != doc.ENCF {
			t.Fatalf("body %s: %v", rec.Body, err)
		}
		parsed, err := ecf.ParseACECF(x)
		if err != nil {
			t.Fatal(err)
		}
		signer, _ := got.CommercialApproval["signer"].(map[string]any)
		if signer["serialNumber"] != supplierRNC || signer["trusted"] != false || signer["fingerprint"] == "" {
			t.Errorf("commercialApproval.signer: got %v, want the supplier's certificate, untrusted", signer)
		}
		delete(got.CommercialApproval, "signer")
		want := map[string]any{"status": "approved", "reason": nil, "buyerRnc": supplierRNC,
			"decidedAt": sello.FormatTime(parsed.At), "receivedAt": got.CommercialApproval["receivedAt"]}
		if got.CommercialApproval["receivedAt"] == nil || !maps.Equal(got.CommercialApproval, want) {
			t.Errorf("commercialApproval: got %v, want %v", got.CommercialApproval, want)
		}
		stored, err := f.store.FindDocument(t.Context(), f.tenant.ID, sello.EnvTest, doc.ENCF)
		if err != nil || stored.Resource().CommercialApproval.Status != "approved" {
			t.Fatalf("stored: %+v, %v", stored, err)
		}
		events, err := f.store.ListEvents(t.Context(), f.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApproval, Limit: 10})
		if err != nil || len(events) != 1 || events[0].Document.ENCF != doc.ENCF || events[0].Data.Payload["status"] != "approved" {
			t.Fatalf("events: %+v, %v", events, err)
		}
		// The same ACECF again (a retry): 200, nothing new.
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecf(t, doc, "", nil)), 200, `"status":"approved"`)
		events, _ = f.store.ListEvents(t.Context(), f.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApproval, Limit: 10})
		if len(events) != 1 {
			t.Errorf("%d events after a retry, want 1", len(events))
		}
		// Another verdict of the same signer on the same document: 400
		// (DGII's contract knows no 409).
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecf(t, doc, "Precio incorrecto", nil)), 400, "INVALID_REQUEST", "cannot be changed")
	})
	t.Run("Rejected", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1)
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecf(t, doc, "Mercancía dañada", nil)), 200,
			`"status":"rejected"`, `"reason":"Mercancía dañada"`)
	})
	t.Run("ErrMismatch", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1)
		for _, tt := range []struct {
			name string
			edit func(a *ecf.ACECF)
			want string
		}{
			{"MontoTotal", func(a *ecf.ACECF) { a.MontoTotal = "1180.01" }, "matches no document"},
			{"FechaEmision", func(a *ecf.ACECF) { a.FechaEmision.Day = 8 }, "matches no document"},
			{"RNCComprador", func(a *ecf.ACECF) { a.RNCComprador = "101010101" }, "matches no document"},
			{"eNCF", func(a *ecf.ACECF) { a.ENCF = "E310000000099" }, "matches no document"},
			{"RNCEmisor", func(a *ecf.ACECF) { a.RNCEmisor = "101010101" }, "RNCEmisor 101010101 is not this receiver's"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				x := f.acecf(t, doc, "", tt.edit)
				body, ct := upload(t, "", x)
				rec := f.raw(aprobacion, "", ct, body)
				wantStatus(t, rec, 400, "INVALID_REQUEST", tt.want)
				// The answer names none of the document's values
				// (it used to: "the document has MontoTotal 1180.00…").
				for _, ours := range []string{doc.Total, doc.IssueDate.DGII(), "1180", "09-03-2026"} {
					if strings.Contains(rec.Body.String(), ours) {
						t.Errorf("the refusal %s names the document's %s", rec.Body, ours)
					}
				}
			})
		}
		stored, _ := f.store.FindDocument(t.Context(), f.tenant.ID, sello.EnvTest, doc.ENCF)
		if stored.CommercialApproval != nil {
			t.Errorf("a refused approval was recorded: %+v", stored.CommercialApproval)
		}
	})
	t.Run("ErrNotAccepted", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1)
		if _, err := f.store.UpdateDocument(t.Context(), f.tenant.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: sello.StatusRejected}); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecf(t, doc, "", nil)), 400, "only a document DGII accepted")
	})
	t.Run("ErrSignature", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1)
		x := bytes.Replace(f.acecf(t, doc, "", nil), []byte("<Estado>1</Estado>"), []byte("<Estado>2</Estado><DetalleMotivoRechazo>x</DetalleMotivoRechazo>"), 1)
		wantStatus(t, f.postApproval(t, aprobacion, "", x), 400, "signature")
		unsigned, err := (&ecf.ACECF{RNCEmisor: testRNC, ENCF: doc.ENCF, FechaEmision: doc.IssueDate, MontoTotal: doc.Total,
			RNCComprador: supplierRNC, Estado: ecf.ApprovalAccepted, At: time.Now()}).XML()
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, f.postApproval(t, aprobacion, "", unsigned), 400, "signature")
	})
	t.Run("ErrBadInput", func(t *testing.T) {
		f := mustReceiverFixture(t, true)
		doc := f.issuedDocument(t, 1)
		wantStatus(t, f.raw(aprobacion, "", "application/xml", f.acecf(t, doc, "", nil)), 415)
		body, ct := upload(t, "x.xml", []byte("<ACECF><DetalleAprobacionComercial><Version>1.0</Version></DetalleAprobacionComercial></ACECF>"))
		wantStatus(t, f.raw(aprobacion, "", ct, body), 400, "ACECF.FechaEmision", "ACECF.Estado")
		body, ct = upload(t, "x.xml", []byte(`<!DOCTYPE x [<!ENTITY e "e">]><ACECF/>`))
		wantStatus(t, f.raw(aprobacion, "", ct, body), 400)
		// An RNC that is no tenant's requires a token, as a tenant's does.
		wantStatus(t, f.postApproval(t, "/TesteCF/receptor/101010101/fe/aprobacioncomercial/api/ecf", "", f.acecf(t, doc, "", nil)), 401, "requires Authorization")
		body, ct = upload(t, "otro.xml", f.acecf(t, doc, "", nil))
		wantStatus(t, f.raw(aprobacion, "", ct, body), 400, supplierRNC+doc.ENCF+".xml")
	})
	t.Run("ErrUnauthenticated", func(t *testing.T) {
		f := mustReceiverFixture(t, false)
		doc := f.issuedDocument(t, 1)
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecf(t, doc, "", nil)), 401)
		wantStatus(t, f.postApproval(t, aprobacion, "wrong", f.acecf(t, doc, "", nil)), 401)
	})
}
