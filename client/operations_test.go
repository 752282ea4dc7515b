package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/sello-do/sello/client"
)

const runJSON = `{"ok":true,"run":{"id":"r1","environment":"CerteCF","state":"running","counts":{"pending":1},"rows":[],"failure":null,
	"createdAt":"2026-11-22T14:03:07.123Z","updatedAt":"2026-11-22T14:03:07.123Z"},"correlationId":"cid-202"}`

func TestCreateCertificationRunRequest(t *testing.T) {
	t.Run("Workbook", func(t *testing.T) {
		// The first attempt meets a 503; the retry sends the same bytes and
		// key.
		api := newFakeAPI(t, apiError("UNAVAILABLE", 503), answer(http.StatusAccepted, runJSON))
		c, _ := mustClient(t, api.srv.URL, client.WithEnvironment(client.EnvCert))
		res, err := c.CreateCertificationRun(t.Context(), client.CreateCertificationRunRequest{Workbook: []byte("PK\x03\x04xlsx")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Run.ID != "r1" || res.Run.Environment != client.EnvCert || res.Run.Counts["pending"] != 1 || res.CorrelationID != "cid-202" {
			t.Fatalf("run %+v", res)
		}
		reqs := api.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d attempts, want 2", len(reqs))
		}
		key := reqs[0].Header.Get("Idempotency-Key")
		for i, r := range reqs {
			if r.URL.Path != "/CerteCF/certificacion/pruebas" || r.Header.Get("Content-Type") != client.WorkbookMediaType ||
				api.bodies[i] != "PK\x03\x04xlsx" || r.Header.Get("Idempotency-Key") != key || !uuidV4.MatchString(key) {
				t.Errorf("attempt %d: %s %s, Content-Type %q, key %q, body %q", i+1, r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Idempotency-Key"), api.bodies[i])
			}
		}
	})
	t.Run("Rows", func(t *testing.T) {
		api := newFakeAPI(t, answer(http.StatusAccepted, runJSON))
		c, _ := mustClient(t, api.srv.URL)
		_, err := c.CreateCertificationRun(t.Context(), client.CreateCertificationRunRequest{
			Rows: &client.CertificationRows{ECF: []map[string]any{{"ENCF": "E310000000001", "MontoTotal": 1180}}}, IdempotencyKey: "set-1"})
		if err != nil {
			t.Fatal(err)
		}
		r := api.requests()[0]
		if got, want := api.bodies[0], `{"ecf":[{"ENCF":"E310000000001","MontoTotal":1180}]}`; got != want || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Idempotency-Key") != "set-1" {
			t.Errorf("body %s (Content-Type %q, key %q), want %s as JSON under set-1", got, r.Header.Get("Content-Type"), r.Header.Get("Idempotency-Key"), want)
		}
	})
}

func TestListQueries(t *testing.T) {
	api := newFakeAPI(t, answer(http.StatusOK, `{"ok":true,"data":[],"hasMore":false,"nextCursor":null,"correlationId":"c"}`))
	c, _ := mustClient(t, api.srv.URL)
	ctx := t.Context()
	from := time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC)
	calls := []struct {
		call func() error
		want string
	}{
		{func() error {
			_, err := c.ListInboundDocuments(ctx, client.ListInboundDocumentsParams{Issuer: "131880681", ENCF: "E310000000001", Type: "E31",
				Approval: client.ApprovalPending, DGII: client.DGIIConfirmationAccepted, From: from, To: from.Add(time.Hour), Cursor: "cur", Limit: 10})
			return err
		}, "/TesteCF/documentos-recibidos?approval=pending&cursor=cur&dgii=accepted&encf=E310000000001&from=2026-11-01T04%3A00%3A00Z&issuer=131880681&limit=10&to=2026-11-01T05%3A00%3A00Z&type=E31"},
		{func() error {
			_, err := c.ListApprovals(ctx, client.ListApprovalsParams{Status: client.ApprovalStatusFailed, InboundDocumentID: "in1", Limit: 5})
			return err
		}, "/TesteCF/aprobaciones-comerciales?inboundDocumentId=in1&limit=5&status=failed"},
		{func() error { _, err := c.ListSequences(ctx, client.ListSequencesParams{}); return err }, "/TesteCF/secuencias?"},
		{func() error { _, err := c.ListVoids(ctx, client.ListVoidsParams{Cursor: "v"}); return err }, "/TesteCF/anulaciones?cursor=v"},
		{func() error {
			_, err := c.ListCertificationRuns(ctx, client.ListCertificationRunsParams{Limit: 200})
			return err
		}, "/TesteCF/certificacion/pruebas?limit=200"},
	}
	for i, tt := range calls {
		if err := tt.call(); err != nil {
			t.Fatal(err)
		}
		r := api.requests()[i]
		if got := r.URL.Path + "?" + r.URL.RawQuery; r.Method != "GET" || got != tt.want {
			t.Errorf("%s %s, want GET %s", r.Method, got, tt.want)
		}
	}
}

// TestEmptyID: a get without an id fails before any request (it would
// name the list instead).
func TestEmptyID(t *testing.T) {
	api := newFakeAPI(t, answer(http.StatusOK, `{}`))
	c, _ := mustClient(t, api.srv.URL)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"GetInboundDocument":    func() error { _, err := c.GetInboundDocument(ctx, ""); return err },
		"GetInboundDocumentXML": func() error { _, err := c.GetInboundDocumentXML(ctx, ""); return err },
		"GetInboundDocumentPDF": func() error { _, err := c.GetInboundDocumentPDF(ctx, ""); return err },
		"GetApproval":           func() error { _, err := c.GetApproval(ctx, ""); return err },
		"GetVoid":               func() error { _, err := c.GetVoid(ctx, ""); return err },
		"GetVoidXML":            func() error { _, err := c.GetVoidXML(ctx, ""); return err },
		"GetCertificationRun":   func() error { _, err := c.GetCertificationRun(ctx, ""); return err },
		"GetCertificationPrintedRepresentations": func() error {
			_, err := c.GetCertificationPrintedRepresentations(ctx, "")
			return err
		},
	} {
		if err := call(); err == nil {
			t.Errorf("%s(\"\"): no error", name)
		}
	}
	if n := len(api.requests()); n != 0 {
		t.Fatalf("%d requests, want none", n)
	}
}
