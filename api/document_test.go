package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
)

// TestValidateRunsCreateChecks holds a pre-flight to the create's answer:
// the same 409 for a used e-NCF and 422 for a used-up range, and no number
// consumed either way.
func TestValidateRunsCreateChecks(t *testing.T) {
	f := mustFixture(t)
	const validate, docs = "/TesteCF/documentos-ecf?validate=true", "/TesteCF/documentos-ecf"
	used := apitest.Invoice(testRNC, apitest.WithENCF("E310000000007"))
	if rec := f.do("POST", validate, used); rec.Code != http.StatusOK {
		t.Fatalf("pre-flight of an unused e-NCF: %d %s", rec.Code, rec.Body)
	}
	rec := f.do("POST", docs, used)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	var created struct{ Document sello.DocumentResource }
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil {
		t.Fatal(err)
	}

	t.Run("ErrConflict", func(t *testing.T) {
		want := f.do("POST", docs, used)
		wantError(t, want, http.StatusConflict, sello.CodeConflict, "E310000000007", created.Document.ID)
		wantError(t, f.do("POST", validate, used), http.StatusConflict, sello.CodeConflict, "E310000000007", created.Document.ID)
	})

	t.Run("ErrSequenceExhausted", func(t *testing.T) {
		ctx := context.Background()
		tenant := &sello.Tenant{RNC: "101010101", Name: "Tiny SRL", Plan: sello.RatePlan{Name: "bench", Rate: 1e9, Burst: 1e9}}
		if err := f.db.CreateTenant(ctx, tenant); err != nil {
			t.Fatal(err)
		}
		expires := sello.Date{Year: 2099, Month: 12, Day: 31}
		if err := f.db.AddSequence(ctx, &sello.Sequence{TenantID: tenant.ID, Environment: sello.EnvTest, Type: "31", From: 1, To: 1, ExpiresOn: &expires}); err != nil {
			t.Fatal(err)
		}
		key := mustKey(t, f, tenant.ID, sello.EnvTest, sello.Scopes...)
		body := apitest.Invoice(tenant.RNC)
		for range 3 { // pre-flights consume nothing: the one number stays free
			if rec, _ := call(t, f, key, "POST", validate, body); rec.StatusCode != http.StatusOK {
				t.Fatalf("pre-flight: %d", rec.StatusCode)
			}
		}
		if rec, b := call(t, f, key, "POST", docs, body); rec.StatusCode != http.StatusAccepted {
			t.Fatalf("create of the last number: %d %s", rec.StatusCode, b)
		}
		for _, path := range []string{docs, validate} {
			resp, b := call(t, f, key, "POST", path, body)
			var e struct {
				Error struct{ Code sello.ErrorCode }
			}
			json.Unmarshal(b, &e)
			if resp.StatusCode != http.StatusUnprocessableEntity || e.Error.Code != sello.CodeSequenceExhausted {
				t.Fatalf("%s: got %d %s, want 422 SEQUENCE_EXHAUSTED", path, resp.StatusCode, b)
			}
		}
	})

	t.Run("NothingConsumed", func(t *testing.T) {
		rec := f.do("POST", docs, apitest.Invoice(testRNC))
		var d struct{ Document sello.DocumentResource }
		if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || d.Document.ENCF != "E310000000001" {
			t.Fatalf("first numbered create after the pre-flights: %d %s, want E310000000001", rec.Code, rec.Body)
		}
	})
}

// wantDetails checks that the error body has exactly the details want.
func wantDetails(t *testing.T, body []byte, want ...sello.ErrorDetail) {
	t.Helper()
	var b struct {
		Error struct{ Details []sello.ErrorDetail }
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Error.Details, want) {
		t.Errorf("details\n got %+v\nwant %+v", b.Error.Details, want)
	}
}

// TestENCFOutsideRanges: an explicit e-NCF in no registered range is 422
// at IdDoc.eNCF, saying how to register a range (the path and the CLI, as
// SEQUENCE_EXHAUSTED says), on a create and on a pre-flight.
func TestENCFOutsideRanges(t *testing.T) {
	f := mustFixture(t)
	body := apitest.Invoice(testRNC, apitest.WithENCF("E319000000001"))
	for _, path := range []string{"/TesteCF/documentos-ecf", "/TesteCF/documentos-ecf?validate=true"} {
		rec := f.do("POST", path, body)
		wantError(t, rec, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "The document is not valid: 1 problem.")
		wantDetails(t, rec.Body.Bytes(), sello.ErrorDetail{Path: sello.ENCFPath, Message: "e-NCF E319000000001 lies in no registered range of type E31 in TesteCF: register the range DGII authorized for it with POST /TesteCF/secuencias or `sello sequences add`, or request a new range of type E31 from DGII (Oficina Virtual, \"Solicitud de secuencias de e-NCF\")."})
	}
}

// TestMalformedENCFOneMessage: a malformed e-NCF in a document gets one
// detail at IdDoc.eNCF, the e-NCF parser's, not the XSD pattern's beside it.
func TestMalformedENCFOneMessage(t *testing.T) {
	f := mustFixture(t)
	for _, tt := range []struct{ encf, want string }{
		{"E31XYZ", `e-NCF "E31XYZ" must have 13 characters (E, the type, 10 digits).`},
		{"E310000000001x", `e-NCF "E310000000001x" must have 13 characters (E, the type, 10 digits).`},
		{"X310000000001", `e-NCF "X310000000001" must start with the series E.`},
		{"E99000000001A", `e-NCF "E99000000001A" has an unknown type "99".`},
		{"E310000000000", `e-NCF "E310000000000" has sequential 0; sequentials start at 1.`},
		{"E320000000001", "e-NCF E320000000001 is of type 32 but TipoeCF is 31."},
	} {
		t.Run(tt.encf, func(t *testing.T) {
			rec := f.do("POST", "/TesteCF/documentos-ecf?validate=true", apitest.Invoice(testRNC, apitest.WithENCF(tt.encf)))
			wantError(t, rec, http.StatusUnprocessableEntity, sello.CodeValidationFailed, "The document is not valid: 1 problem.")
			wantDetails(t, rec.Body.Bytes(), sello.ErrorDetail{Path: sello.ENCFPath, Message: tt.want})
		})
	}
}

// TestListDocumentsBuyerAndENCF filters the list by buyer and by e-NCF,
// as the portal's Documentos page does with the same store query; bad
// values are refused with a detail each.
func TestListDocumentsBuyerAndENCF(t *testing.T) {
	f := mustFixture(t)
	for _, buyer := range []string{"131880681", "101000001", "131880681"} {
		body := apitest.Invoice(testRNC, func(ecf map[string]any) { apitest.Section(ecf, "Comprador")["RNCComprador"] = buyer })
		if rec := f.do("POST", "/TesteCF/documentos-ecf", body); rec.Code != http.StatusAccepted {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
	}
	list := func(query string) []string {
		t.Helper()
		resp, body := call(t, f, f.key, "GET", "/TesteCF/documentos-ecf?"+query, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", query, resp.StatusCode, body)
		}
		var l struct{ Data []sello.DocumentResource }
		if err := json.Unmarshal(body, &l); err != nil {
			t.Fatal(err)
		}
		var encfs []string
		for _, d := range l.Data {
			encfs = append(encfs, d.ENCF)
			// Each document carries its buyer (buyerRnc).
			if q, _ := url.ParseQuery(query); q.Has("buyer") && (d.BuyerRNC == nil || *d.BuyerRNC != q.Get("buyer")) {
				t.Errorf("%s: %s has buyerRnc %v", query, d.ENCF, d.BuyerRNC)
			}
		}
		return encfs
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"buyer=131880681", []string{"E310000000003", "E310000000001"}},
		{"buyer=101000001", []string{"E310000000002"}},
		{"buyer=40200000009", nil},
		{"encf=E310000000002", []string{"E310000000002"}},
		{"encf=E310000000002&buyer=131880681", nil},
		{"encf=E310000000009", nil},
	} {
		if got := list(tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.query, got, tt.want)
		}
	}
	resp, body := call(t, f, f.key, "GET", "/TesteCF/documentos-ecf?buyer=12&encf=B0100000001", nil)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad buyer and e-NCF: %d %s, want 400", resp.StatusCode, body)
	}
	for _, p := range []string{`"buyer"`, `"encf"`} {
		if !strings.Contains(string(body), p) {
			t.Errorf("%s: want a detail at %s", body, p)
		}
	}
}
