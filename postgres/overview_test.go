package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// TestOverviewQueriesUseIndexes: the month at a glance reads ranges of
// its day totals' primary keys (a tenant's days, never its documents),
// and counts failed webhook deliveries from the partial index of failed
// ones: the planner, told not to scan tables, finds those indexes, so no
// page view scans a table, whatever the number of documents.
func TestOverviewQueriesUseIndexes(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	from, to := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, sql string
		args      []any
		index     string
	}{
		{"IssuedTotals", issuedTotalsSQL, []any{"t", "TesteCF", from, to}, "document_days_pkey"},
		{"ReceivedTotals", receivedTotalsSQL, []any{"t", "TesteCF", from, to}, "inbound_days_pkey"},
		{"FailedDeliveries", countFailedDeliveriesSQL, []any{"t", "TesteCF", 1000}, "webhook_deliveries_failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := indexPlan(t, db, c.sql, c.args...)
			t.Logf("%s: %s", c.name, got)
			if !usesIndex(got, c.index) {
				t.Errorf("plan %q, want a scan of the index %s", got, c.index)
			}
		})
	}
}

// TestMigrateDailyTotals: migration 22 gives the documents stored before
// it their TotalITBIS (from the payload; from the XML of received ones)
// and sums them into the day totals, which the triggers then keep: a
// document stored before moves from its row when its status changes.
func TestMigrateDailyTotals(t *testing.T) {
	url := pgtest.MustSchema(t)
	raw, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, raw, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), 21); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	const docSQL = `INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, issue_date, delivery_status, payload, created_at, updated_at)
		VALUES ($1, 't1', 'TesteCF', $2, $3, $4, $5, $6, 'not_sent', $7, $8, $8)`
	const inboundSQL = `INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc, issue_date, total, xml, acuse, approval, received_at, updated_at, dgii_status, xml_sha256)
		VALUES ($1, 't1', 'TesteCF', '31', $2, '131000001', 'Proveedor', '130000001', '2026-03-09', $3, $4, '\x00', 'pending', $5, $5, $6, sha256($4))`
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO tenants (id, rnc, name, plan_name, plan_rate, plan_burst, created_at) VALUES ('t1', '130000001', 'Comprador', 'default', 10, 20, $1)`, []any{at}},
		{docSQL, []any{"d1", "31", "E310000000001", "accepted", "1180.00", "2026-03-09", `{"ECF":{"Encabezado":{"Totales":{"TotalITBIS":"180.00","MontoTotal":"1180.00"}}}}`, at}},
		{docSQL, []any{"d2", "34", "E340000000001", "accepted", "100.00", "2026-03-09", `{"ECF":{"Encabezado":{"Totales":{"MontoTotal":"100.00"}}}}`, at}},
		{docSQL, []any{"d3", "31", "E310000000002", "submitted", "121.50", "2026-03-10", `{"ECF":{"Encabezado":{"Totales":{"TotalITBIS":18.5,"MontoTotal":"121.50"}}}}`, at}},
		{inboundSQL, []any{"r1", "E310000000009", "1180", []byte("<ECF><Encabezado><Totales><MontoTotal>1180</MontoTotal><TotalITBIS>180.5</TotalITBIS></Totales></Encabezado></ECF>"), at, "accepted"}},
		{inboundSQL, []any{"r2", "E310000000010", "99.5", []byte("<ECF><Encabezado><Totales><MontoTotal>99.5</MontoTotal></Totales></Encabezado></ECF>"), at, nil}},
	} {
		if _, err := raw.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}

	db, err := Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open (migrating to the latest): %v", err)
	}
	defer db.Close()
	wantDays(t, db.FindIssuedTotals, []string{
		"2026-03-09 31 accepted 1 1180 180",
		"2026-03-09 34 accepted 1 100 0",
		"2026-03-10 31 in_process 1 121.5 18.5",
	})
	wantDays(t, db.FindReceivedTotals, []string{
		"2026-03-09 31  1 99.5 0",
		"2026-03-09 31 accepted 1 1180 180.5",
	})
	if d, err := db.FindDocumentByID(t.Context(), "t1", sello.EnvTest, "d3"); err != nil || d.ITBIS != "18.50" {
		t.Errorf("d3's ITBIS after the migration: %+v, %v; want 18.50", d, err)
	}
	if _, err := db.UpdateDocument(t.Context(), "t1", sello.EnvTest, "d3", sello.DocumentChange{Status: sello.StatusAccepted}); err != nil {
		t.Fatal(err)
	}
	wantDays(t, db.FindIssuedTotals, []string{
		"2026-03-09 31 accepted 1 1180 180",
		"2026-03-09 34 accepted 1 100 0",
		"2026-03-10 31 accepted 1 121.5 18.5",
	})
}

// wantDays compares the tenant t1's day totals in TesteCF in March 2026,
// as "day type state count total itbis" lines, sorted.
func wantDays(t *testing.T, find func(context.Context, string, sello.Environment, sello.Date, sello.Date) ([]sello.DayTotals, error), want []string) {
	t.Helper()
	wantDaysOf(t, find, "t1", 2026, time.March, want)
}

// wantDaysOf compares a tenant's day totals in TesteCF in a month, as
// "day type state count total itbis" lines, sorted.
func wantDaysOf(t *testing.T, find func(context.Context, string, sello.Environment, sello.Date, sello.Date) ([]sello.DayTotals, error), tenantID string, year int, month time.Month, want []string) {
	t.Helper()
	ts, err := find(t.Context(), tenantID, sello.EnvTest, sello.Date{Year: year, Month: month, Day: 1}, sello.Date{Year: year, Month: month, Day: 31})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ts {
		got = append(got, fmt.Sprintf("%s %s %s %d %s %s", d.Day, d.Type, d.State, d.Count, d.Total, d.ITBIS))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("day totals:\n got  %q\n want %q", got, want)
	}
}

// BenchmarkDayTotalsWrites is what the day totals cost the writes that
// keep them, through the store: a create (document, history, event, job)
// and its three changes of status (signed, submitted, accepted), each one
// transaction, on a schema with the triggers of migration 22 and on one
// with them disabled, one after the other in each iteration so that both
// see the same machine (this one is shared). Medians of the iterations:
// with-ns/create, without-ns/create, and the three changes' with-ns/status
// and without-ns/status.
func BenchmarkDayTotalsWrites(b *testing.B) {
	open := func() *DB {
		db, err := Open(b.Context(), pgtest.MustSchema(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return db
	}
	with, without := open(), open()
	if _, err := without.pool.Exec(b.Context(), `ALTER TABLE documents DISABLE TRIGGER document_days, DISABLE TRIGGER document_days_update`); err != nil {
		b.Fatal(err)
	}
	type store struct {
		db             *DB
		tenantID       string
		create, status []time.Duration
	}
	stores := []*store{{db: with}, {db: without}}
	for _, s := range stores {
		tn := storetest.MustCreateTenant(b, s.db)
		storetest.MustAddSequence(b, s.db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1e9)
		s.tenantID = tn.ID
	}
	for b.Loop() {
		for _, s := range stores {
			start := time.Now()
			doc := storetest.MustCreateDocument(b, s.db, benchDraft(s.tenantID))
			mid := time.Now()
			for _, st := range []sello.Status{sello.StatusSigned, sello.StatusSubmitted, sello.StatusAccepted} {
				if _, err := s.db.UpdateDocument(b.Context(), s.tenantID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: st}); err != nil {
					b.Fatal(err)
				}
			}
			s.create = append(s.create, mid.Sub(start))
			s.status = append(s.status, time.Since(mid))
		}
	}
	b.ReportMetric(median(stores[0].create), "with-ns/create")
	b.ReportMetric(median(stores[1].create), "without-ns/create")
	b.ReportMetric(median(stores[0].status), "with-ns/status")
	b.ReportMetric(median(stores[1].status), "without-ns/status")
}

// benchDraft is an invoice of 20 lines (3 KB of payload) issued today.
func benchDraft(tenantID string) sello.DocumentDraft {
	return sello.DocumentDraft{TenantID: tenantID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
		Prepare: func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			items := make([]map[string]string, 20)
			for i := range items {
				items[i] = map[string]string{"NombreItem": fmt.Sprintf("Artículo %d de ferretería", i), "CantidadItem": "2.00", "PrecioUnitarioItem": "500.00", "MontoItem": "1000.00"}
			}
			payload, _ := json.Marshal(map[string]any{"ECF": map[string]any{"eNCF": n.String(), "DetallesItems": items,
				"Encabezado": map[string]any{"Totales": map[string]string{"MontoTotal": "23600.00", "TotalITBIS": "3600.00"}}}})
			return &sello.PreparedDocument{Payload: payload, Total: "23600.00", ITBIS: "3600.00", BuyerRNC: "131880681", IssueDate: sello.TodayInDR(time.Now())}, nil
		}}
}

// BenchmarkDayTotalsTriggers is the triggers' own cost, apart from the
// commit's wait for the disk that dominates a write (and varies on a
// shared machine): an insert of a document, and its three changes of
// status (signed, submitted, accepted: only the last moves it in the
// totals), each its own transaction on a connection with
// synchronous_commit off, on a schema with the triggers and on one
// without, one after the other in each iteration. Medians of the
// iterations: with-ns/insert, without-ns/insert, and the three changes'
// with-ns/status and without-ns/status.
func BenchmarkDayTotalsTriggers(b *testing.B) {
	payload, _ := json.Marshal(map[string]any{"ECF": map[string]any{"eNCF": "E310000000001",
		"Encabezado": map[string]any{"Totales": map[string]string{"MontoTotal": "23600.00", "TotalITBIS": "3600.00"}}}})
	type side struct {
		conn           *pgxpool.Conn
		tenantID       string
		insert, status []time.Duration
	}
	const insert = `INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, itbis, issue_date, delivery_status, payload, created_at, updated_at)
		VALUES ($1, $2, 'TesteCF', '31', $3, 'queued_for_signing', 23600.00, 3600.00, '2026-11-27', 'not_sent', $4, now(), now())`
	var sides []*side
	for _, totals := range []bool{true, false} {
		db, err := Open(b.Context(), pgtest.MustSchema(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		if !totals {
			if _, err := db.pool.Exec(b.Context(), `ALTER TABLE documents DISABLE TRIGGER document_days, DISABLE TRIGGER document_days_update`); err != nil {
				b.Fatal(err)
			}
		}
		tn := storetest.MustCreateTenant(b, db)
		conn, err := db.pool.Acquire(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(conn.Release)
		if _, err := conn.Exec(b.Context(), `SET synchronous_commit TO off`); err != nil {
			b.Fatal(err)
		}
		sides = append(sides, &side{conn: conn, tenantID: tn.ID})
	}
	n := 0
	statuses := []string{"signed", "submitted", "accepted"}
	for i := 0; b.Loop(); i++ {
		n++
		for _, s := range sides {
			id := fmt.Sprintf("doc%08d", n)
			start := time.Now()
			if _, err := s.conn.Exec(b.Context(), insert, id, s.tenantID, fmt.Sprintf("E31%010d", n), string(payload)); err != nil {
				b.Fatal(err)
			}
			s.insert = append(s.insert, time.Since(start))
			start = time.Now()
			for _, st := range statuses {
				if _, err := s.conn.Exec(b.Context(), `UPDATE documents SET status = $1 WHERE tenant_id = $2 AND environment = 'TesteCF' AND id = $3`,
					st, s.tenantID, id); err != nil {
					b.Fatal(err)
				}
			}
			s.status = append(s.status, time.Since(start))
		}
	}
	for i, name := range []string{"with", "without"} {
		b.ReportMetric(median(sides[i].insert), name+"-ns/insert")
		b.ReportMetric(median(sides[i].status), name+"-ns/status")
	}
}

// median is the median of ds in nanoseconds (robust to the pauses a
// shared machine adds to a few iterations).
func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds())
}

// TestDayTotalsTriggersFire: a document's insert fires the day totals'
// trigger once; signing and sending it (its state stays in_process) fire
// nothing; DGII's verdict fires it once. EXPLAIN ANALYZE says so, with the
// time each trigger took (logged for docs/benchmarks.md), after 2,000
// documents of the same day have worn today's rows.
func TestDayTotalsTriggersFire(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tn := storetest.MustCreateTenant(t, db)
	const insert = `INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, itbis, issue_date, delivery_status, payload, created_at, updated_at)
		VALUES ($1, $2, 'TesteCF', '31', $3, 'queued_for_signing', 23600.00, 3600.00, '2026-11-27', 'not_sent', '{}', now(), now())`
	const update = `UPDATE documents SET status = $1 WHERE tenant_id = $2 AND environment = 'TesteCF' AND id = $3`
	statuses := []string{"signed", "submitted", "accepted"}
	for i := range 2000 {
		id := fmt.Sprintf("doc%08d", i)
		if _, err := db.pool.Exec(t.Context(), insert, id, tn.ID, fmt.Sprintf("E31%010d", i)); err != nil {
			t.Fatal(err)
		}
		for _, st := range statuses {
			if _, err := db.pool.Exec(t.Context(), update, st, tn.ID, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	// triggers runs q under EXPLAIN ANALYZE and returns its triggers'
	// lines ("Trigger document_days: time=0.038 calls=1"), the foreign
	// keys' left out.
	triggers := func(q string, args ...any) []string {
		t.Helper()
		rows, err := db.pool.Query(t.Context(), "EXPLAIN (ANALYZE) "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(line, "Trigger document_days") {
				out = append(out, line)
			}
		}
		return out
	}
	for k := range 3 {
		id := fmt.Sprintf("probe%d", k)
		got := triggers(insert, id, tn.ID, fmt.Sprintf("E32%010d", k))
		if len(got) != 1 || !strings.HasPrefix(got[0], "Trigger document_days: ") {
			t.Errorf("insert: %q, want document_days once", got)
		}
		t.Logf("insert: %q", got)
		for _, st := range statuses {
			got := triggers(update, st, tn.ID, id)
			if st != "accepted" && len(got) != 0 {
				t.Errorf("to %s: %q, want no trigger (still in_process)", st, got)
			} else if st == "accepted" && (len(got) != 1 || !strings.HasPrefix(got[0], "Trigger document_days_update: ")) {
				t.Errorf("to accepted: %q, want document_days_update once", got)
			}
			t.Logf("to %s: %q", st, got)
		}
	}
}

// BenchmarkDayTotalsMillion writes a million documents of one company
// over a year (SQL, so that it takes minutes, not hours; the triggers fire for
// each) and shows what Inicio's read of them costs: its plan and time
// through the day totals, against the same sums computed from the
// documents. Logged for docs/benchmarks.md; a few minutes and 1 GB of
// disk: go test -run='^$' -bench=DayTotalsMillion -benchtime=1x.
func BenchmarkDayTotalsMillion(t *testing.B) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tn := storetest.MustCreateTenant(t, db)
	other := storetest.MustCreateTenant(t, db)
	const batch = 100_000
	start := time.Now()
	for i := range 10 {
		tenant := tn.ID
		if i == 9 {
			tenant = other.ID // a tenth of the table is another company's
		}
		t0 := time.Now()
		if _, err := db.pool.Exec(t.Context(), `
			INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, itbis, issue_date, delivery_status, payload, created_at, updated_at)
			SELECT 'd' || g, $1, 'TesteCF', (ARRAY['31', '32', '34'])[1 + g % 3], 'E3' || (1 + g % 3) || lpad(g::text, 10, '0'),
				(ARRAY['accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'rejected', 'accepted_conditional', 'submitted', 'accepted'])[1 + g % 10],
				(500 + g % 9000)::numeric + (g % 100) / 100.0, (90 + g % 1600)::numeric + (g % 100) / 100.0,
				date '2026-11-27' - (g % 365)::int, 'not_sent', '{}', now(), now()
			FROM generate_series($2::bigint, $3::bigint) g`, tenant, i*batch+1, (i+1)*batch); err != nil {
			t.Fatal(err)
		}
		t.Logf("documents %d–%d: %s", i*batch+1, (i+1)*batch, time.Since(t0).Round(time.Millisecond))
	}
	t.Logf("1,000,000 documents written in %s", time.Since(start).Round(time.Second))
	// What autovacuum does in a while: each batch above updated today's
	// rows in one transaction, whose dead versions no page prune could
	// reclaim before its commit.
	if _, err := db.pool.Exec(t.Context(), `VACUUM ANALYZE document_days`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(t.Context(), `ANALYZE documents`); err != nil {
		t.Fatal(err)
	}
	var days int
	if err := db.pool.QueryRow(t.Context(), `SELECT count(*) FROM document_days WHERE tenant_id = $1`, tn.ID).Scan(&days); err != nil {
		t.Fatal(err)
	}
	t.Logf("the company's day totals: %d rows for 900,000 documents", days)
	from, to := sello.Date{Year: 2025, Month: 12, Day: 1}, sello.Date{Year: 2026, Month: 11, Day: 30}
	explain := func(q string, args ...any) {
		t.Helper()
		rows, err := db.pool.Query(t.Context(), "EXPLAIN (ANALYZE, BUFFERS) "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			t.Log("  " + line)
		}
	}
	t.Log("Inicio's read, from the day totals:")
	explain(issuedTotalsSQL, tn.ID, "TesteCF", dateValue(from), dateValue(to))
	var times []time.Duration
	for range 20 {
		t0 := time.Now()
		ts, err := db.FindIssuedTotals(t.Context(), tn.ID, sello.EnvTest, from, to)
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, time.Since(t0))
		if len(ts) == 0 {
			t.Fatal("no day totals")
		}
	}
	t.Logf("FindIssuedTotals over 12 months: median %.2f ms of 20", median(times)/1e6)
	t.Log("the same sums from the documents (what the day totals spare):")
	explain(`SELECT issue_date, type, status, count(*), sum(total), sum(itbis) FROM documents
		WHERE tenant_id = $1 AND environment = 'TesteCF' AND issue_date >= $2 AND issue_date <= $3
		GROUP BY issue_date, type, status`, tn.ID, dateValue(from), dateValue(to))
}

// TestDayTotalsShards: two transactions of one company writing today's
// day totals at once (a create and a verdict, two verdicts) do not wait
// for each other: each adds to its own slot's rows (migration 27). The
// second runs with a lock timeout while the first is open, in a
// transaction whose slot differs (one whose id falls in the first's slot
// is rolled back and begun again, as a later one would be). The sums read
// are the documents'.
func TestDayTotalsShards(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	tn := storetest.MustCreateTenant(t, db)
	const insert = `INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, itbis, issue_date, delivery_status, payload, created_at, updated_at)
		VALUES ($1, $2, 'TesteCF', '31', $3, 'queued_for_signing', 118.00, 18.00, '2026-11-27', 'not_sent', '{}', now(), now())`
	const accept = `UPDATE documents SET status = 'accepted' WHERE tenant_id = $1 AND id = $2`
	for i := range 3 {
		if _, err := db.pool.Exec(ctx, insert, fmt.Sprint("d", i), tn.ID, fmt.Sprintf("E31%010d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// begin begins a transaction whose slot is not avoid's, and returns
	// it with its own.
	begin := func(avoid int64) (pgx.Tx, int64) {
		t.Helper()
		for range 100 {
			tx, err := db.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var slot int64
			if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()::text::bigint % 16`).Scan(&slot); err != nil {
				t.Fatal(err)
			}
			if slot != avoid {
				return tx, slot
			}
			tx.Rollback(ctx)
		}
		t.Fatalf("100 transactions in a row in slot %d", avoid)
		return nil, 0
	}
	for _, c := range []struct {
		name        string
		first, then string
		args1, args []any
	}{
		{"CreateAndVerdict", insert, accept, []any{"d3", tn.ID, "E310000000003"}, []any{tn.ID, "d0"}},
		{"TwoVerdicts", accept, accept, []any{tn.ID, "d1"}, []any{tn.ID, "d2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, slot := begin(-1)
			defer first.Rollback(ctx)
			if _, err := first.Exec(ctx, c.first, c.args1...); err != nil {
				t.Fatal(err)
			}
			then, _ := begin(slot)
			defer then.Rollback(ctx)
			if _, err := then.Exec(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
				t.Fatal(err)
			}
			if _, err := then.Exec(ctx, c.then, c.args...); err != nil {
				t.Fatalf("while another transaction of the company is open: %v", err)
			}
			for _, tx := range []pgx.Tx{then, first} {
				if err := tx.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	var slots int
	if err := db.pool.QueryRow(ctx, `SELECT count(DISTINCT slot) FROM document_days WHERE tenant_id = $1`, tn.ID).Scan(&slots); err != nil || slots < 2 {
		t.Errorf("slots written: %d (%v), want several", slots, err)
	}
	wantDaysOf(t, db.FindIssuedTotals, tn.ID, 2026, time.November, []string{"2026-11-27 31 accepted 3 354 54", "2026-11-27 31 in_process 1 118 18"})
}
