package portal_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/portal/internal/docseed"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/storetest"
)

// The Documentos pages' figures (docs/benchmarks.md): a company with
// 10,000 documents issued in TesteCF over 100 days and 1,000 received;
// each page's server time in process against the same query over the API
// in the same run, each page's weight, and the plans of the queries.
//
//	go test -run='^$' -bench='^BenchmarkDocuments$' -benchtime=200x ./portal/
//	SELLO_TEST_DATABASE_URL=… go test -run='^$' -bench='^BenchmarkDocumentsPostgres$' -benchtime=200x ./portal/

// benchIssued is SELLO_BENCH_DOCUMENTS when set (a quick run).
var benchIssued = func() int {
	if n, err := strconv.Atoi(os.Getenv("SELLO_BENCH_DOCUMENTS")); err == nil && n >= 10 {
		return n
	}
	return 10_000
}()

const (
	benchReceived = 1_000
	benchDays     = 100
	// benchBuyers share the documents of type 31 (about 140 each);
	// rareBuyer has 3 documents, the worst case of the buyer's filter.
	benchBuyers = 50
	rareBuyer   = "40200000009"
)

// bigCompany is the benchmark's company: its site, an owner's browser, the
// API on the same store with a key that reads, and documents to ask for.
type bigCompany struct {
	site         *Site
	owner        *Browser
	api          http.Handler
	key          string
	sample       *sello.Document // an accepted, delivered, approved 31
	firstBuyer   string
	week0, week1 time.Time // a week of the 100 days
	explain      func(tb testing.TB, q string, args ...any) string
	engine       string
	// dropIndexes drops the indexes of the buyer's filter, a document's
	// events and the received documents' list (migrations 23 and 24), to
	// measure the pages as they were without them; explainBuyer,
	// explainEvents and explainReceived are the plans they change.
	dropIndexes                                  func(tb testing.TB)
	explainBuyer, explainEvents, explainReceived func(tb testing.TB) string
	// grow copies each document times times, each copy times×100 days
	// earlier, lightened (no payload, no XML, no history or events):
	// the list's rows and indexes as a company with that many
	// documents has them (SELLO_BENCH_MILLION=1).
	grow func(tb testing.TB, times int)
	// reexplain logs every list query's plan again.
	reexplain func(tb testing.TB, label string)
}

// mustBigCompany fills db, whose clock setClock replaces, with the
// benchmark's company.
func mustBigCompany(tb testing.TB, db sello.Store, setClock func(func() time.Time)) *bigCompany {
	tb.Helper()
	start := time.Now().Add(-benchDays * 24 * time.Hour).Truncate(time.Second)
	clock := storetest.NewClock(start, time.Second)
	setClock(clock.Now)
	site := MustSiteOn(tb, db)
	ctx := context.Background()
	if err := db.UpdateTenantPlan(ctx, site.Tenant.ID, sello.RatePlan{Name: "bench", Rate: 1e9, Burst: 1e9}); err != nil {
		tb.Fatal(err)
	}
	// Every event is delivered to a paused endpoint (held, as a company's
	// endpoint down for maintenance; no jobs).
	ep := storetest.MustCreateWebhookEndpoint(tb, db, site.Tenant.ID, sello.EnvTest)
	if err := db.PauseWebhookEndpoint(ctx, site.Tenant.ID, ep.ID); err != nil {
		tb.Fatal(err)
	}
	seed := &docseed.Seeder{Store: db, Tenant: site.Tenant, Env: sello.EnvTest, Now: clock.Peek}
	step := benchDays * 24 * time.Hour / time.Duration(benchIssued)
	c := &bigCompany{site: site, firstBuyer: fmt.Sprintf("1%08d", 1000)}
	began := time.Now()
	for i := range benchIssued {
		at := start.Add(time.Duration(i) * step)
		if d := at.Sub(clock.Peek()); d > 0 {
			clock.Add(d)
		}
		st := docseed.Story{Buyer: fmt.Sprintf("1%08d", 1000+i%benchBuyers), Units: 1 + i%7}
		switch i % 10 {
		case 0, 1, 2, 3, 4:
			st.Delivery = sello.DeliveryDelivered
			if i%20 == 0 {
				st.Verdicts = []docseed.Verdict{{Status: sello.ApprovalApproved, Holder: "IDCDO-00100000001"}}
			}
		case 5:
			st.Status, st.Delivery = sello.StatusAcceptedConditional, sello.DeliveryFailed
		case 6:
			st.Status = sello.StatusRejected
		case 7, 8:
			st.Type = sello.TypeConsumo
		case 9:
			st.Status = sello.StatusFailed
		}
		if i == benchIssued/100 || i == benchIssued/2 || i == benchIssued*9/10 {
			st = docseed.Story{Buyer: rareBuyer, Delivery: sello.DeliveryDelivered}
		}
		d := seed.Issue(tb, st)
		if i == benchIssued/2+10 {
			c.sample = d
		}
	}
	tb.Logf("%d documents issued through the store in %s", benchIssued, time.Since(began).Round(time.Second))
	c.week0 = time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, sello.DRZone).AddDate(0, 0, 50)
	c.week1 = c.week0.AddDate(0, 0, 6)
	for i := range benchReceived {
		n := int64(i + 1)
		encf := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}.String()
		storetest.MustCreateInbound(tb, db, &sello.InboundDocument{
			TenantID: site.Tenant.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: encf,
			IssuerRNC: fmt.Sprintf("1%08d", 5000+i%20), IssuerName: "Proveedor Ejemplo SRL", BuyerRNC: site.Tenant.RNC,
			IssueDate: sello.TodayInDR(start), Total: "1180.00",
			XML: []byte("<ECF><eNCF>" + encf + "</eNCF></ECF>"), Acuse: []byte("<ARECF><eNCF>" + encf + "</eNCF></ARECF>"),
			SecurityCode: "q7Xk2P",
		})
	}
	setClock(time.Now)
	site.MustUser(tb, "ana@caribe.do", sello.RoleOwner)
	c.owner = site.NewBrowser(tb)
	c.owner.MustLogin("ana@caribe.do")
	k, key := sello.NewAPIKey(site.Tenant.ID, sello.EnvTest, "contabilidad", []sello.Scope{sello.ScopeRead}, nil)
	if err := db.CreateAPIKey(ctx, k); err != nil {
		tb.Fatal(err)
	}
	c.key = key
	c.api = (&api.Server{Store: db, MasterKey: site.Server.MasterKey}).Handler()
	return c
}

// benchQueries are the pages measured: the portal's query and the API's
// same filter.
func (c *bigCompany) benchQueries() []struct{ name, portal, api string } {
	day := func(t time.Time) string { return t.Format("2006-01-02") }
	return []struct{ name, portal, api string }{
		{"first-page", "", ""},
		{"state-rejected", "estado=rejected", "status=rejected"},
		{"type-E32", "tipo=E32", "type=E32"},
		{"buyer", "comprador=" + c.firstBuyer, "buyer=" + c.firstBuyer},
		{"buyer-rare", "comprador=" + rareBuyer, "buyer=" + rareBuyer},
		{"encf", "encf=" + c.sample.ENCF, "encf=" + c.sample.ENCF},
		{"one-week", "desde=" + day(c.week0) + "&hasta=" + day(c.week1),
			url.Values{"from": {c.week0.UTC().Format(time.RFC3339)}, "to": {c.week1.AddDate(0, 0, 1).UTC().Format(time.RFC3339)}}.Encode()},
		{"accepted-one-week-buyer", "estado=accepted&comprador=" + c.firstBuyer + "&desde=" + day(c.week0) + "&hasta=" + day(c.week1),
			"status=accepted&buyer=" + c.firstBuyer + "&" + url.Values{"from": {c.week0.UTC().Format(time.RFC3339)}, "to": {c.week1.AddDate(0, 0, 1).UTC().Format(time.RFC3339)}}.Encode()},
	}
}

// serve runs one request through h and fails unless it answers 200.
func serve(tb testing.TB, h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("%s: %d %s", req.URL, rec.Code, rec.Body.String()[:min(300, rec.Body.Len())])
	}
	return rec
}

// benchDocuments measures the pages, the API's same queries, the
// document's page and the export, and logs the weights and the plans.
func benchDocuments(b *testing.B, c *bigCompany) {
	h := c.site.HTTP.Config.Handler
	cookie := &http.Cookie{Name: sello.SessionCookie, Value: c.owner.Cookie()}
	portalReq := func(path string) *http.Request {
		req := httptest.NewRequest("GET", path, nil)
		req.AddCookie(cookie)
		return req
	}
	apiReq := func(query string) *http.Request {
		req := httptest.NewRequest("GET", "/TesteCF/documentos-ecf?"+query, nil)
		req.Header.Set("X-API-KEY", c.key)
		return req
	}
	receivedReq := func() *http.Request {
		req := httptest.NewRequest("GET", "/TesteCF/documentos-recibidos?limit=50", nil)
		req.Header.Set("X-API-KEY", c.key)
		return req
	}
	// The weights, with the assets as sent (gzipped).
	assets := 0
	first := serve(b, h, portalReq("/portal/TesteCF/documentos")).Body.String()
	for _, m := range assetRef.FindAllStringSubmatch(first, -1) {
		req := portalReq(m[1])
		req.Header.Set("Accept-Encoding", "gzip")
		assets += serve(b, h, req).Body.Len()
	}
	next := regexp.MustCompile(`href="([^"]+)" id="documents-older"`).FindStringSubmatch(first)
	pages := []struct{ name, path string }{
		{"documents", "/portal/TesteCF/documentos"},
		{"documents-second-page", strings.ReplaceAll(next[1], "&amp;", "&")},
		{"documents-filtered", "/portal/TesteCF/documentos?estado=accepted&comprador=" + c.firstBuyer},
		{"document", "/portal/TesteCF/documentos/" + c.sample.ENCF},
	}
	for _, p := range pages {
		body := serve(b, h, portalReq(p.path)).Body.Bytes()
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(body)
		zw.Close()
		b.Logf("weight %-22s HTML %6d bytes (%5d gzipped), with the assets as sent %6d bytes", p.name, len(body), gz.Len(), len(body)+assets)
		if len(body)+assets > maxPageWeight {
			b.Errorf("%s weighs %d bytes with its assets, over %d", p.name, len(body)+assets, maxPageWeight)
		}
	}
	// Warm both up (the API's first request checks the key and records
	// its first use).
	serve(b, c.api, apiReq(""))
	for _, q := range c.benchQueries() {
		path := "/portal/TesteCF/documentos"
		if q.portal != "" {
			path += "?" + q.portal
		}
		b.Run("portal/"+q.name, func(b *testing.B) {
			for b.Loop() {
				serve(b, h, portalReq(path))
			}
		})
		b.Run("api/"+q.name, func(b *testing.B) {
			for b.Loop() {
				serve(b, c.api, apiReq(q.api))
			}
		})
	}
	b.Run("portal/second-page", func(b *testing.B) {
		for b.Loop() {
			serve(b, h, portalReq(pages[1].path))
		}
	})
	b.Run("portal/document", func(b *testing.B) {
		for b.Loop() {
			serve(b, h, portalReq(pages[3].path))
		}
	})
	b.Run("api/received-first-page", func(b *testing.B) {
		for b.Loop() {
			serve(b, c.api, receivedReq())
		}
	})
	b.Run("portal/export-all", func(b *testing.B) {
		var n int
		for b.Loop() {
			n = serve(b, h, portalReq("/portal/TesteCF/documentos/exportar")).Body.Len()
		}
		b.ReportMetric(float64(n), "bytes/export")
	})
	defer func() {
		// Without the indexes of migrations 23 and 24, as the pages were
		// before them: the buyer's filter, a document's events and the
		// received documents' list.
		label := ""
		if os.Getenv("SELLO_BENCH_MILLION") != "" {
			label = "x100/"
		}
		b.Logf("plan (%s %s, with the indexes) buyer (rare):\n%s", c.engine, label, c.explainBuyer(b))
		b.Logf("plan (%s %s, with the indexes) a document's events:\n%s", c.engine, label, c.explainEvents(b))
		b.Logf("plan (%s %s, with the indexes) the received documents' first page:\n%s", c.engine, label, c.explainReceived(b))
		c.dropIndexes(b)
		b.Logf("plan (%s %s, without the indexes) buyer (rare):\n%s", c.engine, label, c.explainBuyer(b))
		b.Logf("plan (%s %s, without the indexes) a document's events:\n%s", c.engine, label, c.explainEvents(b))
		b.Logf("plan (%s %s, without the indexes) the received documents' first page:\n%s", c.engine, label, c.explainReceived(b))
		for _, q := range c.benchQueries() {
			if !strings.HasPrefix(q.name, "buyer") {
				continue
			}
			path := "/portal/TesteCF/documentos?" + q.portal
			b.Run(label+"unindexed/portal/"+q.name, func(b *testing.B) {
				for b.Loop() {
					serve(b, h, portalReq(path))
				}
			})
			b.Run(label+"unindexed/api/"+q.name, func(b *testing.B) {
				for b.Loop() {
					serve(b, c.api, apiReq(q.api))
				}
			})
		}
		b.Run(label+"unindexed/portal/document", func(b *testing.B) {
			for b.Loop() {
				serve(b, h, portalReq(pages[3].path))
			}
		})
		b.Run(label+"unindexed/api/received-first-page", func(b *testing.B) {
			for b.Loop() {
				serve(b, c.api, receivedReq())
			}
		})
	}()
	defer func() {
		if os.Getenv("SELLO_BENCH_MILLION") == "" {
			return
		}
		began := time.Now()
		c.grow(b, 99)
		b.Logf("grown to %d documents in %s", benchIssued*100, time.Since(began).Round(time.Second))
		c.reexplain(b, ", 100 times the documents")
		for _, q := range c.benchQueries() {
			path := "/portal/TesteCF/documentos"
			if q.portal != "" {
				path += "?" + q.portal
			}
			b.Run("x100/portal/"+q.name, func(b *testing.B) {
				for b.Loop() {
					serve(b, h, portalReq(path))
				}
			})
			b.Run("x100/api/"+q.name, func(b *testing.B) {
				for b.Loop() {
					serve(b, c.api, apiReq(q.api))
				}
			})
		}
		b.Run("x100/portal/second-page", func(b *testing.B) {
			for b.Loop() {
				serve(b, h, portalReq(pages[1].path))
			}
		})
		b.Run("x100/portal/document", func(b *testing.B) {
			for b.Loop() {
				serve(b, h, portalReq(pages[3].path))
			}
		})
	}()
	b.Run("api/every-page-of-200", func(b *testing.B) {
		for b.Loop() {
			q := url.Values{"limit": {"200"}}
			for {
				rec := serve(b, c.api, apiReq(q.Encode()))
				m := regexp.MustCompile(`"nextCursor":"([^"]+)"`).FindStringSubmatch(rec.Body.String())
				if m == nil {
					break
				}
				q.Set("cursor", m[1])
			}
		}
	})
}

// The store's queries, as sqlite/ and postgres/ build them (the columns
// left out: they change no plan), for EXPLAIN.
const (
	listSQL     = `SELECT id FROM documents WHERE tenant_id = $1 AND environment = $2%s ORDER BY created_at DESC, id DESC LIMIT 51`
	eventsSQL   = `SELECT seq FROM events WHERE tenant_id = $1 AND environment = $2 AND %s = $3 ORDER BY %s`
	receivedSQL = `SELECT id, received_at FROM inbound_documents WHERE tenant_id = $1 AND environment = $2 ORDER BY received_at DESC, id DESC LIMIT 51`
)

// explainAll logs the plan of each measured query, and of the document's
// events.
func explainAll(b *testing.B, c *bigCompany, placeholder func(int) string, docID string, eventsExpr, eventsOrder string, at func(time.Time) any) {
	args := func(extra ...any) []any { return append([]any{c.site.Tenant.ID, sello.EnvTest}, extra...) }
	ph := func(s string) string {
		for i := 9; i >= 1; i-- {
			s = strings.ReplaceAll(s, fmt.Sprintf("$%d", i), placeholder(i))
		}
		return s
	}
	queries := []struct {
		name  string
		where string
		args  []any
	}{
		{"first page", "", nil},
		{"state", " AND status = $3", []any{"rejected"}},
		{"type", " AND type = $3", []any{"32"}},
		{"buyer", " AND buyer_rnc = $3", []any{c.firstBuyer}},
		{"buyer (rare)", " AND buyer_rnc = $3", []any{rareBuyer}},
		{"e-NCF", " AND encf = $3", []any{c.sample.ENCF}},
		{"a week", " AND created_at >= $3 AND created_at < $4", []any{at(c.week0), at(c.week1.AddDate(0, 0, 1))}},
		{"accepted, a buyer, a week", " AND status = $3 AND buyer_rnc = $4 AND created_at >= $5 AND created_at < $6",
			[]any{"accepted", c.firstBuyer, at(c.week0), at(c.week1.AddDate(0, 0, 1))}},
	}
	c.reexplain = func(tb testing.TB, label string) {
		for _, q := range queries {
			tb.Logf("plan (%s%s) %s:\n%s", c.engine, label, q.name, c.explain(tb, ph(fmt.Sprintf(listSQL, q.where)), args(q.args...)...))
		}
	}
	c.reexplain(b, "")
	c.explainEvents = func(tb testing.TB) string {
		return c.explain(tb, ph(fmt.Sprintf(eventsSQL, eventsExpr, eventsOrder)), args(docID)...)
	}
	c.explainBuyer = func(tb testing.TB) string {
		return c.explain(tb, ph(fmt.Sprintf(listSQL, " AND buyer_rnc = $3")), args(rareBuyer)...)
	}
	c.explainReceived = func(tb testing.TB) string {
		return c.explain(tb, ph(receivedSQL), args()...)
	}
	b.Logf("plan (%s) a document's events:\n%s", c.engine, c.explainEvents(b))
}

// BenchmarkDocuments: on SQLite.
func BenchmarkDocuments(b *testing.B) {
	db, err := sqlite.Open(context.Background(), b.TempDir()+"/sello.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	c := mustBigCompany(b, db, func(now func() time.Time) { db.Now = now })
	c.engine = "SQLite"
	c.explain = func(tb testing.TB, q string, args ...any) string {
		return explainSQLite(tb, db.SQL(), q, args...)
	}
	// Without statistics, as Sello's SQLite runs (the million's growth
	// analyzes).
	c.dropIndexes = func(tb testing.TB) {
		for _, q := range dropIndexes {
			if _, err := db.SQL().Exec(q); err != nil {
				tb.Fatalf("%s: %v", q, err)
			}
		}
	}
	c.grow = func(tb testing.TB, times int) {
		if _, err := db.SQL().Exec(`
			WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ?)
			INSERT INTO documents (id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
				qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
				failure_reason, payload, created_at, updated_at, contingency)
			SELECT d.id || printf('-%02d', n), tenant_id, environment, type,
				'E' || type || printf('%010d', CAST(substr(encf, 4) AS INTEGER) + n * 100000), status, track_id, security_code, signed_at,
				qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
				failure_reason, '{}',
				strftime('%Y-%m-%dT%H:%M:%S', created_at, printf('-%d days', n * 100)) || substr(created_at, 20),
				strftime('%Y-%m-%dT%H:%M:%S', updated_at, printf('-%d days', n * 100)) || substr(updated_at, 20), contingency
			FROM documents d, k WHERE tenant_id = ?`, times, c.site.Tenant.ID); err != nil {
			tb.Fatal(err)
		}
		if _, err := db.SQL().Exec("ANALYZE"); err != nil {
			tb.Fatal(err)
		}
	}
	explainAll(b, c, func(int) string { return "?" }, c.sample.ID, "json_extract(document, '$.id')", "seq",
		func(t time.Time) any { return t.UTC().Format("2006-01-02T15:04:05.000000Z") })
	benchDocuments(b, c)
}

// BenchmarkDocumentsPostgres: on PostgreSQL (SELLO_TEST_DATABASE_URL).
func BenchmarkDocumentsPostgres(b *testing.B) {
	db, err := postgres.Open(context.Background(), pgtest.MustSchema(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	c := mustBigCompany(b, db, func(now func() time.Time) { db.Now = now })
	c.engine = "PostgreSQL"
	if _, err := db.Pool().Exec(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	c.explain = func(tb testing.TB, q string, args ...any) string {
		rows, err := db.Pool().Query(context.Background(), "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) "+q, args...)
		if err != nil {
			tb.Fatalf("explain %s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var line string
			rows.Scan(&line)
			out = append(out, "  "+line)
		}
		return strings.Join(out, "\n")
	}
	c.dropIndexes = func(tb testing.TB) {
		for _, q := range append(dropIndexes, "ANALYZE") {
			if _, err := db.Pool().Exec(context.Background(), q); err != nil {
				tb.Fatalf("%s: %v", q, err)
			}
		}
	}
	c.grow = func(tb testing.TB, times int) {
		if _, err := db.Pool().Exec(context.Background(), `
			INSERT INTO documents (id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
				qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
				failure_reason, payload, created_at, updated_at, contingency)
			SELECT d.id || '-' || lpad(n::text, 2, '0'), tenant_id, environment, type,
				'E' || type || lpad((substr(encf, 4)::bigint + n * 100000)::text, 10, '0'), status, track_id, security_code, signed_at,
				qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
				failure_reason, '{}', created_at - make_interval(days => n * 100), updated_at - make_interval(days => n * 100), contingency
			FROM documents d, generate_series(1, $1::int) n WHERE tenant_id = $2`, times, c.site.Tenant.ID); err != nil {
			tb.Fatal(err)
		}
		if _, err := db.Pool().Exec(context.Background(), "ANALYZE"); err != nil {
			tb.Fatal(err)
		}
	}
	explainAll(b, c, func(i int) string { return fmt.Sprintf("$%d", i) }, c.sample.ID, "document->>'id'", "tx, seq",
		func(t time.Time) any { return t })
	benchDocuments(b, c)
}

// dropIndexes drop the indexes of the buyer's filter and a document's
// events (migration 24) and of the received documents' list (SQLite's
// migration 23, PostgreSQL's 24).
var dropIndexes = []string{
	"DROP INDEX documents_tenant_env_buyer_created",
	"DROP INDEX events_tenant_document",
	"DROP INDEX inbound_documents_list",
}

// explains numbers explainSQLite's statements.
var explains atomic.Int64

// explainSQLite is SQLite's plan of q. Each EXPLAIN's text is new (a
// numbered comment): the store's connections keep a prepared statement
// per text, and an EXPLAIN prepared before an index was dropped still
// lists the index (it is not run, so SQLite never sees the schema
// changed and prepares it anew).
func explainSQLite(tb testing.TB, db *sql.DB, q string, args ...any) string {
	rows, err := db.Query(fmt.Sprintf("EXPLAIN QUERY PLAN /* %d */ ", explains.Add(1))+q, args...)
	if err != nil {
		tb.Fatalf("explain %s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		rows.Scan(&id, &parent, &notused, &detail)
		out = append(out, "  "+detail)
	}
	return strings.Join(out, "\n")
}
