package clienttest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/sqlite"
)

const rnc = "130000001"

// realAPI is Sello's API over a real SQLite store, served on loopback behind
// a proxy that checks every answer against the OpenAPI document and can lose
// answers on purpose.
type realAPI struct {
	db     *sqlite.DB
	tenant *sello.Tenant
	key    string
	url    string

	mu sync.Mutex
	// loseNext, when > 0, makes the proxy forward the next matching
	// requests to the API but hang up instead of returning the answer.
	loseNext  int
	loseMatch func(r *http.Request) bool
	lost      int

	// limiterAhead is how far the rate limiter's clock runs ahead of the
	// wall clock, in nanoseconds: a test waits out a Retry-After by moving
	// it on.
	limiterAhead atomic.Int64
}

func mustRealAPI(t *testing.T) *realAPI {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "sello.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tenant := &sello.Tenant{RNC: rnc, Name: "Prueba SRL", Plan: sello.RatePlan{Name: "test", Rate: 1e6, Burst: 1e6}}
	if err := db.CreateTenant(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	expires := sello.Date{Year: 2099, Month: 12, Day: 31}
	if err := db.AddSequence(ctx, &sello.Sequence{TenantID: tenant.ID, Environment: sello.EnvTest, Type: "31", From: 1, To: 1_000_000, ExpiresOn: &expires}); err != nil {
		t.Fatal(err)
	}
	k, key := sello.NewAPIKey(tenant.ID, sello.EnvTest, "sdk", sello.Scopes, nil)
	if err := db.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	a := &realAPI{db: db, tenant: tenant, key: key}
	limiter := sello.NewMemoryRateLimiter()
	limiter.Now = func() time.Time { return time.Now().Add(time.Duration(a.limiterAhead.Load())) }
	apiSrv := httptest.NewServer((&api.Server{Store: db, RateLimiter: limiter}).Handler())
	t.Cleanup(apiSrv.Close)

	target, _ := url.Parse(apiSrv.URL)
	contract := apitest.NewContract(t)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) },
		ModifyResponse: func(resp *http.Response) error {
			data, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			resp.Body = io.NopCloser(bytes.NewReader(data))
			contract.CheckResponse(t, resp.Request, nil, resp, data)
			return nil
		},
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		lose := a.loseNext > 0 && a.loseMatch(r)
		if lose {
			a.loseNext--
			a.lost++
		}
		a.mu.Unlock()
		if !lose {
			proxy.ServeHTTP(w, r)
			return
		}
		// The request reaches Sello; its answer is lost on the way back.
		rec := httptest.NewRecorder()
		proxy.ServeHTTP(rec, r)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		conn.Close()
	}))
	t.Cleanup(front.Close)
	a.url = front.URL
	return a
}

// lose makes the proxy lose the answers of the next n requests match
// accepts.
func (a *realAPI) lose(n int, match func(r *http.Request) bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.loseNext, a.loseMatch, a.lost = n, match, 0
}

func (a *realAPI) client(t *testing.T, key string) *client.Client {
	t.Helper()
	c, err := client.New(a.url, key,
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 4, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func invoiceDoc(mods ...func(map[string]any)) json.RawMessage {
	return json.RawMessage(apitest.Invoice(rnc, mods...))
}

func TestAgainstRealAPI(t *testing.T) {
	a := mustRealAPI(t)
	c := a.client(t, a.key)
	if c.Environment() != client.EnvTest {
		t.Fatalf("environment %s from key prefix, want TesteCF", c.Environment())
	}
	ctx := t.Context()

	var first client.Document
	t.Run("CreateRetriedOnce", func(t *testing.T) {
		// The first attempt creates the document but its answer is lost; the
		// retry, with the same Idempotency-Key, gets it replayed.
		a.lose(1, func(r *http.Request) bool {
			return r.Method == "POST" && r.URL.Path == "/TesteCF/documentos-ecf" && r.URL.RawQuery == ""
		})
		res, err := c.CreateDocument(ctx, client.CreateDocumentRequest{Document: invoiceDoc()})
		if err != nil {
			t.Fatal(err)
		}
		if a.lost != 1 {
			t.Fatalf("%d answers lost, want 1", a.lost)
		}
		if !res.Replayed {
			t.Error("the retried create was not a replay")
		}
		d := res.Document
		if d.ENCF != "E310000000001" || d.Type != "E31" || d.Status != client.StatusQueuedForSigning || d.Total != "1180.00" ||
			d.TrackID != nil || d.SignedAt != nil || d.DGII != nil || d.Delivery.Status != "not_sent" ||
			d.CommercialApproval != nil || d.CreatedAt.IsZero() || res.CorrelationID == "" {
			t.Fatalf("document %+v", d)
		}
		list, err := c.ListDocuments(ctx, client.ListDocumentsParams{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Data) != 1 || list.Data[0].ID != d.ID {
			t.Fatalf("%d documents after a retried create, want exactly 1", len(list.Data))
		}
		first = d
	})

	t.Run("Validate", func(t *testing.T) {
		res, err := c.ValidateDocument(ctx, invoiceDoc())
		if err != nil {
			t.Fatal(err)
		}
		if !res.Valid || !bytes.Contains(res.Document, []byte(`"MontoTotal"`)) || res.CorrelationID == "" {
			t.Fatalf("validate: %+v", res)
		}
		_, err = c.ValidateDocument(ctx, invoiceDoc(func(ecf map[string]any) {
			apitest.Section(ecf, "Emisor")["RNCEmisor"] = "101010101"
		}))
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeValidationFailed || e.HTTPStatus != 422 || len(e.Details) == 0 || e.CorrelationID == "" {
			t.Fatalf("invalid document: %v", err)
		}
		if !strings.Contains(e.Details[0].Path, "RNCEmisor") {
			t.Errorf("details %+v, want the RNCEmisor path", e.Details)
		}
	})

	t.Run("StatusBatch", func(t *testing.T) {
		res, err := c.StatusBatch(ctx, []string{first.ENCF, "E310000000999"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 2 || !res.Results[0].Found || res.Results[0].Document.ID != first.ID ||
			res.Results[1].Found || res.Results[1].Document != nil || res.Results[1].ENCF != "E310000000999" {
			t.Fatalf("results %+v", res.Results)
		}
		_, err = c.StatusBatch(ctx, []string{"X1"})
		if !client.IsCode(err, client.CodeValidationFailed) {
			t.Fatalf("malformed e-NCF: %v", err)
		}
	})

	t.Run("Get", func(t *testing.T) {
		res, err := c.GetDocument(ctx, first.ENCF)
		if err != nil {
			t.Fatal(err)
		}
		if res.Document.ID != first.ID || !res.Document.CreatedAt.Equal(first.CreatedAt) {
			t.Fatalf("got %+v, want %+v", res.Document, first)
		}
		if _, err := c.GetDocument(ctx, "E310000000999"); !client.IsNotFound(err) {
			t.Fatalf("unknown e-NCF: %v", err)
		}
	})

	t.Run("ListPages", func(t *testing.T) {
		for range 2 {
			if _, err := c.CreateDocument(ctx, client.CreateDocumentRequest{Document: invoiceDoc()}); err != nil {
				t.Fatal(err)
			}
		}
		page, err := c.ListDocuments(ctx, client.ListDocumentsParams{Limit: 2, Type: "E31", Status: client.StatusQueuedForSigning})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 2 || page.NextCursor == "" || !page.HasMore {
			t.Fatalf("first page: %d documents, cursor %q", len(page.Data), page.NextCursor)
		}
		var encfs []string
		for d, err := range c.Documents(ctx, client.ListDocumentsParams{Limit: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			encfs = append(encfs, d.ENCF)
		}
		if got, want := strings.Join(encfs, ","), "E310000000003,E310000000002,E310000000001"; got != want {
			t.Fatalf("every page: %s, want %s", got, want)
		}
		if _, err := c.ListDocuments(ctx, client.ListDocumentsParams{Cursor: "garbage"}); !client.IsCode(err, client.CodeInvalidRequest) {
			t.Fatalf("bad cursor: %v", err)
		}
	})

	t.Run("XMLAndPDF", func(t *testing.T) {
		if _, err := c.GetDocumentXML(ctx, first.ENCF); !client.IsNotFound(err) {
			t.Fatalf("XML before signing: %v, want NOT_FOUND", err)
		}
		if _, err := c.GetDocumentPDF(ctx, first.ENCF); !client.IsNotFound(err) {
			t.Fatalf("PDF before signing: %v, want NOT_FOUND", err)
		}
		signedAt := time.Now().UTC().Truncate(time.Second)
		xml := []byte(`<?xml version="1.0" encoding="UTF-8"?><ECF><Signature/></ECF>`)
		if _, err := a.db.UpdateDocument(ctx, a.tenant.ID, sello.EnvTest, first.ID, sello.DocumentChange{
			Status: sello.StatusSigned, SignedXML: xml, SecurityCode: "a1B2c3", SignedAt: &signedAt,
			QRURL: "https://ecf.dgii.gov.do/testecf/consultatimbre?ENCF=" + first.ENCF, EventType: sello.EventECFSigned,
		}); err != nil {
			t.Fatal(err)
		}
		got, err := c.GetDocumentXML(ctx, first.ENCF)
		if err != nil || !bytes.Equal(got, xml) {
			t.Fatalf("XML: %q, %v", got, err)
		}
		pdf, err := c.GetDocumentPDF(ctx, first.ENCF)
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("PDF: %.20q, %v", pdf, err)
		}
	})

	t.Run("Events", func(t *testing.T) {
		all, err := c.ListEvents(ctx, client.ListEventsParams{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range all.Data {
			got = append(got, string(e.Type)+" "+e.Document.ENCF)
			if e.Environment != client.EnvTest || e.TenantID != a.tenant.ID || e.ID == "" || e.CreatedAt.IsZero() {
				t.Errorf("event %+v", e)
			}
		}
		want := "ecf.queued E310000000001,ecf.queued E310000000002,ecf.queued E310000000003,ecf.signed E310000000001"
		if strings.Join(got, ",") != want {
			t.Fatalf("events %s, want %s (one queued event despite the retried create)", strings.Join(got, ","), want)
		}
		if all.HasMore || all.NextCursor == "" {
			t.Fatalf("hasMore %v, nextCursor %q", all.HasMore, all.NextCursor)
		}

		page, err := c.ListEvents(ctx, client.ListEventsParams{Limit: 3})
		if err != nil || len(page.Data) != 3 || !page.HasMore {
			t.Fatalf("limit 3: %+v, %v", page, err)
		}
		rest, err := c.ListEvents(ctx, client.ListEventsParams{Cursor: page.NextCursor})
		if err != nil || len(rest.Data) != 1 || rest.Data[0].Type != client.EventECFSigned || rest.HasMore {
			t.Fatalf("after the first page: %+v, %v", rest, err)
		}
		idle, err := c.ListEvents(ctx, client.ListEventsParams{Cursor: rest.NextCursor})
		if err != nil || len(idle.Data) != 0 || idle.NextCursor != rest.NextCursor {
			t.Fatalf("polling at the end: %+v, %v; want no events and the same nextCursor", idle, err)
		}
		signed, err := c.ListEvents(ctx, client.ListEventsParams{Type: client.EventECFSigned})
		if err != nil || len(signed.Data) != 1 || signed.Data[0].Document.Status != client.StatusSigned {
			t.Fatalf("type filter: %+v, %v", signed, err)
		}
		if _, err := c.ListEvents(ctx, client.ListEventsParams{Cursor: "not-a-cursor"}); !client.IsCode(err, client.CodeInvalidRequest) {
			t.Fatalf("bad cursor: %v", err)
		}

		// The first event is stale now: its document is signed.
		queued := all.Data[0]
		if !client.NeedsReconcile(client.StatusSigned, &queued) {
			t.Fatal("a queued snapshot over a signed document needs reconciling")
		}
		doc, err := c.Reconcile(ctx, &queued)
		if err != nil || doc.ID != first.ID || doc.Status != client.StatusSigned || doc.SecurityCode == nil {
			t.Fatalf("Reconcile: %+v, %v", doc, err)
		}
	})

	t.Run("ListByBuyerAndENCF", func(t *testing.T) {
		// After Events, which counts the documents created before.
		other, err := c.CreateDocument(ctx, client.CreateDocumentRequest{Document: invoiceDoc(func(ecf map[string]any) {
			apitest.Section(ecf, "Comprador")["RNCComprador"] = "101000001"
		})})
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.ListDocuments(ctx, client.ListDocumentsParams{Buyer: "101000001"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 1 || page.Data[0].ENCF != other.Document.ENCF {
			t.Fatalf("buyer 101000001: %d documents, want %s alone", len(page.Data), other.Document.ENCF)
		}
		page, err = c.ListDocuments(ctx, client.ListDocumentsParams{ENCF: other.Document.ENCF, Buyer: "101000001"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 1 || page.Data[0].ENCF != other.Document.ENCF || page.HasMore {
			t.Fatalf("e-NCF %s: %d documents, want it alone", other.Document.ENCF, len(page.Data))
		}
		if page, err = c.ListDocuments(ctx, client.ListDocumentsParams{ENCF: other.Document.ENCF, Buyer: "131880681"}); err != nil || len(page.Data) != 0 {
			t.Fatalf("e-NCF of another buyer: %v, %v; want none", page, err)
		}
		if _, err := c.ListDocuments(ctx, client.ListDocumentsParams{Buyer: "12", ENCF: "B0100000001"}); !client.IsCode(err, client.CodeInvalidRequest) {
			t.Fatalf("bad buyer and e-NCF: %v, want INVALID_REQUEST", err)
		}
	})

	t.Run("ErrInsufficientScope", func(t *testing.T) {
		k, key := sello.NewAPIKey(a.tenant.ID, sello.EnvTest, "reader", []sello.Scope{sello.ScopeStatusRead}, nil)
		if err := a.db.CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		_, err := a.client(t, key).ListEvents(ctx, client.ListEventsParams{})
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeInsufficientScope || e.HTTPStatus != 403 || e.CorrelationID == "" {
			t.Fatalf("error %v", err)
		}
	})

	t.Run("ErrEnvironmentMismatch", func(t *testing.T) {
		other, err := client.New(a.url, a.key, client.WithEnvironment(client.EnvProd))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.GetDocument(ctx, first.ENCF); !client.IsCode(err, client.CodeEnvironmentMismatch) {
			t.Fatalf("error %v, want ENVIRONMENT_MISMATCH", err)
		}
	})

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		if _, err := a.client(t, "sk_testecf_00000000000000000000000000000000").GetDocument(ctx, first.ENCF); !client.IsCode(err, client.CodeUnauthenticated) {
			t.Fatalf("error %v, want UNAUTHENTICATED", err)
		}
	})
}
