package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/internal/metrics/metricstest"
	"github.com/sello-do/sello/internal/tracing"
	"github.com/sello-do/sello/sqlite"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

const testRNC = "130000001"

// fixture is an API over a real SQLite store with one tenant, a type-31
// range and a key with every scope.
type fixture struct {
	db      *sqlite.DB  // nil over another store
	store   sello.Store // the store the server runs on
	handler http.Handler
	key     string
	tenant  *sello.Tenant
	logs    *bytes.Buffer
}

func mustFixture(tb testing.TB, configure ...func(*api.Server)) *fixture {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "sello.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	f := mustFixtureOn(tb, db, db.SQL().PingContext, configure...)
	f.db = db
	return f
}

// mustFixtureOn is mustFixture over any store (db is then nil); configure
// sets the server's fields before its handler is made.
func mustFixtureOn(tb testing.TB, st sello.Store, ready func(context.Context) error, configure ...func(*api.Server)) *fixture {
	tb.Helper()
	ctx := context.Background()
	t := &sello.Tenant{RNC: testRNC, Name: "Prueba SRL", Plan: sello.RatePlan{Name: "bench", Rate: 1e9, Burst: 1e9}}
	if err := st.CreateTenant(ctx, t); err != nil {
		tb.Fatal(err)
	}
	expires := sello.Date{Year: 2099, Month: 12, Day: 31}
	if err := st.AddSequence(ctx, &sello.Sequence{TenantID: t.ID, Environment: sello.EnvTest, Type: "31", From: 1, To: 9_000_000_000, ExpiresOn: &expires}); err != nil {
		tb.Fatal(err)
	}
	k, plaintext := sello.NewAPIKey(t.ID, sello.EnvTest, "test", sello.Scopes, nil)
	if err := st.CreateAPIKey(ctx, k); err != nil {
		tb.Fatal(err)
	}
	logs := &bytes.Buffer{}
	srv := &api.Server{Store: st, Logger: slog.New(slog.NewJSONHandler(logs, nil)), Ready: ready}
	for _, c := range configure {
		c(srv)
	}
	return &fixture{store: st, handler: srv.Handler(), key: plaintext, tenant: t, logs: logs}
}

// do serves one request in process.
func (f *fixture) do(method, path string, body []byte) *httptest.ResponseRecorder {
	return f.doKey(f.key, method, path, body)
}

// doKey serves one request with key ("" for none) in process.
func (f *fixture) doKey(key, method, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	f := mustFixture(t)
	if rec := f.do("GET", "/readyz", nil); rec.Code != http.StatusOK {
		t.Fatalf("readyz before: %d", rec.Code)
	}
	// The database goes away under the server.
	f.db.Close()

	rec := f.do("POST", "/TesteCF/documentos-ecf", apitest.Invoice(testRNC))
	body := rec.Body.String()
	if rec.Code != http.StatusInternalServerError || !strings.Contains(body, `"code":"INTERNAL"`) {
		t.Fatalf("got %d %s, want 500 INTERNAL", rec.Code, body)
	}
	if strings.Contains(body, "sql") || strings.Contains(body, "closed") {
		t.Fatalf("internal detail leaked to the client: %s", body)
	}
	cid := rec.Header().Get("X-Correlation-Id")
	if !strings.Contains(f.logs.String(), cid) || !strings.Contains(f.logs.String(), "closed") {
		t.Fatalf("the log does not carry the cause under correlation id %s:\n%s", cid, f.logs)
	}
	if strings.Contains(f.logs.String(), f.key) {
		t.Fatal("the full API key reached the log")
	}

	rec = f.do("GET", "/readyz", nil)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"UNAVAILABLE"`) {
		t.Fatalf("readyz after: %d %s, want 503 UNAVAILABLE", rec.Code, rec.Body)
	}
	if rec := f.do("GET", "/healthz", nil); rec.Code != http.StatusOK {
		t.Fatalf("healthz: %d", rec.Code)
	}
}

func TestHTTPStatusCoversEveryCode(t *testing.T) {
	seen := map[int]bool{}
	for _, code := range sello.ErrorCodes {
		s := api.HTTPStatus(code)
		if s < 400 {
			t.Errorf("%s maps to %d", code, s)
		}
		seen[s] = true
	}
	if api.HTTPStatus("NO_SUCH_CODE") != 500 {
		t.Error("unknown codes must map to 500")
	}
	if len(seen) != 12 {
		t.Errorf("%d distinct statuses, want 12 (DESIGN §2 and 405 METHOD_NOT_ALLOWED)", len(seen))
	}
}

// BenchmarkCreateDocument measures a create end to end in process: decode,
// DGII rules and totals, numbering and the insert of document, event and
// status history in one SQLite transaction.
func BenchmarkCreateDocument(b *testing.B) {
	f := mustFixture(b)
	body := apitest.Invoice(testRNC)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if rec := f.do("POST", "/TesteCF/documentos-ecf", body); rec.Code != http.StatusAccepted {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkCreateDocumentMetrics is BenchmarkCreateDocument without
// metrics (off) and with them (on: the request's histogram, the
// document's counter, the store's commit histograms), each on its own
// store, alternated in every iteration (each going first in turn) so
// that the machine's noise slows them alike: what observing costs a
// create. on/off is the ratio of their total times.
func BenchmarkCreateDocumentMetrics(b *testing.B) {
	body := apitest.Invoice(testRNC)
	off := mustFixture(b)
	m := metrics.New(metrics.Options{})
	on := mustFixture(b, func(s *api.Server) { s.Metrics = m })
	on.db.ObserveCommits(m.Commit)
	var offTime, onTime time.Duration
	create := func(f *fixture, total *time.Duration) {
		start := time.Now()
		if rec := f.do("POST", "/TesteCF/documentos-ecf", body); rec.Code != http.StatusAccepted {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
		}
		*total += time.Since(start)
	}
	i := 0
	for b.Loop() {
		if i++; i%2 == 0 {
			create(off, &offTime)
			create(on, &onTime)
		} else {
			create(on, &onTime)
			create(off, &offTime)
		}
	}
	b.ReportMetric(float64(offTime.Nanoseconds())/float64(i), "off-ns/op")
	b.ReportMetric(float64(onTime.Nanoseconds())/float64(i), "on-ns/op")
	b.ReportMetric(float64(onTime)/float64(offTime), "on/off")
	if got := metricstest.Values(b, m, "sello_documents_total")["environment=TesteCF,status=queued_for_signing"]; got != float64(i) {
		b.Fatalf("%v documents counted, want %d", got, i)
	}
}

// BenchmarkCreateDocumentTraced compares a create with tracing off (the
// server as BenchmarkCreateDocument has it) and on, as serve has it
// (docs/tracing.md): the request's span and its job's trace context, spans
// batched to an exporter (one that drops them), and serve's log handler.
// Each iteration makes one create of each, in turn first, on two servers
// with their own stores, so that the machine's noise slows them alike; it
// reports each one's median and the median of their ratio.
func BenchmarkCreateDocumentTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { tp.Shutdown(context.Background()) })
	off := mustFixture(b)
	on := mustFixture(b, func(s *api.Server) {
		s.TracerProvider = tp
		s.Logger = slog.New(tracing.LogHandler(s.Logger.Handler()))
	})
	body := apitest.Invoice(testRNC)
	create := func(f *fixture) time.Duration {
		start := time.Now()
		if rec := f.do("POST", "/TesteCF/documentos-ecf", body); rec.Code != http.StatusAccepted {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
		}
		return time.Since(start)
	}
	var offs, ons, ratios []float64
	for i := 0; b.Loop(); i++ {
		var o, n time.Duration
		if i%2 == 0 {
			o, n = create(off), create(on)
		} else {
			n, o = create(on), create(off)
		}
		offs, ons, ratios = append(offs, float64(o.Microseconds())), append(ons, float64(n.Microseconds())), append(ratios, float64(n)/float64(o))
	}
	b.ReportMetric(median(offs), "off-µs")
	b.ReportMetric(median(ons), "on-µs")
	b.ReportMetric(median(ratios), "on/off")
}

// median is the middle of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkCreateDocumentParallel creates from 16 goroutines at once, as
// concurrent clients do: the store commits their transactions in groups.
func BenchmarkCreateDocumentParallel(b *testing.B) {
	f := mustFixture(b)
	body := apitest.Invoice(testRNC)
	b.SetBytes(int64(len(body)))
	b.SetParallelism(8) // × GOMAXPROCS goroutines
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if rec := f.do("POST", "/TesteCF/documentos-ecf", body); rec.Code != http.StatusAccepted {
				b.Errorf("status %d: %.300s", rec.Code, rec.Body)
				return
			}
		}
	})
}

// BenchmarkValidateDocument is the same request with ?validate=true: no
// write, for comparison.
func BenchmarkValidateDocument(b *testing.B) {
	f := mustFixture(b)
	body := apitest.Invoice(testRNC)
	for b.Loop() {
		if rec := f.do("POST", "/TesteCF/documentos-ecf?validate=true", body); rec.Code != http.StatusOK {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkStatusBatch1000 asks for 1,000 existing documents at once.
func BenchmarkStatusBatch1000(b *testing.B) {
	f := mustFixture(b)
	body := apitest.Invoice(testRNC)
	encfs := make([]string, 1000)
	for i := range encfs {
		rec := f.do("POST", "/TesteCF/documentos-ecf", body)
		var r struct{ Document struct{ ENCF string } }
		json.Unmarshal(rec.Body.Bytes(), &r)
		encfs[i] = r.Document.ENCF
	}
	req, _ := json.Marshal(map[string]any{"encfs": encfs})
	b.ResetTimer()
	for b.Loop() {
		rec := f.do("POST", "/TesteCF/documentos-ecf/status/batch", req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
		}
		io.Copy(io.Discard, rec.Body)
	}
}

// BenchmarkBaselineSQLiteTx is the floor under BenchmarkCreateDocument, in
// the same run on the same database: one transaction inserting one row of
// about the size of a document.
func BenchmarkBaselineSQLiteTx(b *testing.B) {
	f := mustFixture(b)
	db := f.db.SQL()
	if _, err := db.Exec(`CREATE TABLE bench (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	payload := string(apitest.Invoice(testRNC))
	for b.Loop() {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO bench (payload) VALUES (?)`, payload); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
