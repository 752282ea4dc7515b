package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// TestOverviewQueriesUseIndexes: the month at a glance reads ranges of
// its day totals' primary keys (a tenant's days, never its documents),
// and counts failed webhook deliveries from the partial index of failed
// ones alone: no page view scans a table, whatever the number of
// documents.
func TestOverviewQueriesUseIndexes(t *testing.T) {
	db := mustOpenInternal(t)
	for _, c := range []struct {
		name, sql string
		args      []any
		want      string
	}{
		{"IssuedTotals", issuedTotalsSQL, []any{"t", "TesteCF", "2025-12-01", "2026-11-30"},
			"SEARCH document_days USING PRIMARY KEY (tenant_id=? AND environment=? AND day>? AND day<?)"},
		{"ReceivedTotals", receivedTotalsSQL, []any{"t", "TesteCF", "2025-12-01", "2026-11-30"},
			"SEARCH inbound_days USING PRIMARY KEY (tenant_id=? AND environment=? AND day>? AND day<?)"},
		{"FailedDeliveries", countFailedDeliveriesSQL, []any{"t", "TesteCF", 1000},
			"SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_failed (tenant_id=? AND environment=?)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := queryPlan(t, db, c.sql, c.args...)
			t.Logf("%s: %s", c.name, got)
			// SCAN (subquery-1) reads the at most limit rows the count's
			// subquery gives; a table's SCAN would read every row.
			if !strings.Contains(got, c.want) || strings.Contains(strings.ReplaceAll(got, "SCAN (subquery-1)", ""), "SCAN ") {
				t.Errorf("plan %q, want %q and no table scanned", got, c.want)
			}
		})
	}
}

// TestMigrateDailyTotals: migration 21 gives the documents stored before
// it their TotalITBIS (from the payload; from the XML of received ones)
// and sums them into the day totals, which the triggers then keep: a
// document stored before moves from its row when its status changes.
func TestMigrateDailyTotals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sello.db")
	if err := createFile(path); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path+"?"+pragmas)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, fsys, goose.WithGoMigrations(goMigrations()...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), 20); err != nil {
		t.Fatal(err)
	}
	at := formatTime(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	doc := func(id, typ, encf, status, issued, total, payload string) struct {
		sql  string
		args []any
	} {
		return struct {
			sql  string
			args []any
		}{`INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, issue_date, delivery_status, payload, created_at, updated_at)
			VALUES (?, 't1', 'TesteCF', ?, ?, ?, ?, ?, 'not_sent', ?, ?, ?)`, []any{id, typ, encf, status, total, issued, payload, at, at}}
	}
	inbound := func(id, encf, status string, total string, xml string) struct {
		sql  string
		args []any
	} {
		var dgii any
		if status != "" {
			dgii = status
		}
		return struct {
			sql  string
			args []any
		}{`INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc, issue_date, total, xml, acuse, approval, received_at, updated_at, dgii_status)
			VALUES (?, 't1', 'TesteCF', '31', ?, '131000001', 'Proveedor', '130000001', '2026-03-09', ?, ?, x'00', 'pending', ?, ?, ?)`, []any{id, encf, total, []byte(xml), at, at, dgii}}
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO tenants (id, rnc, name, plan_name, plan_rate, plan_burst, receiver_auth_off, created_at) VALUES ('t1', '130000001', 'Comprador', 'default', 10, 20, 0, ?)`, []any{at}},
		doc("d1", "31", "E310000000001", "accepted", "2026-03-09", "1180.00", `{"ECF":{"Encabezado":{"Totales":{"TotalITBIS":"180.00","MontoTotal":"1180.00"}}}}`),
		doc("d2", "34", "E340000000001", "accepted", "2026-03-09", "100.00", `{"ECF":{"Encabezado":{"Totales":{"MontoTotal":"100.00"}}}}`),
		doc("d3", "31", "E310000000002", "submitted", "2026-03-10", "121.50", `{"ECF":{"Encabezado":{"Totales":{"TotalITBIS":18.5,"MontoTotal":"121.50"}}}}`),
		inbound("r1", "E310000000009", "accepted", "1180", "<ECF><Encabezado><Totales><MontoTotal>1180</MontoTotal><TotalITBIS>180.5</TotalITBIS></Totales></Encabezado></ECF>"),
		inbound("r2", "E310000000010", "", "99.5", "<ECF><Encabezado><Totales><MontoTotal>99.5</MontoTotal></Totales></Encabezado></ECF>"),
	} {
		if _, err := raw.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(t.Context(), path)
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
		t.Errorf("d3's ITBIS after the migration: %q, %v; want 18.50", d.ITBIS, err)
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
	ts, err := find(t.Context(), "t1", sello.EnvTest, sello.Date{Year: 2026, Month: 3, Day: 1}, sello.Date{Year: 2026, Month: 3, Day: 31})
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
// transaction, on a store with the triggers of migration 21 and on one
// with them dropped, one after the other in each iteration so that both
// see the same machine (this one is shared). Medians of the iterations:
// with-ns/create, without-ns/create, and the three changes' with-ns/status
// and without-ns/status.
func BenchmarkDayTotalsWrites(b *testing.B) {
	with, without := mustOpenInternal(b), mustOpenInternal(b)
	for _, tr := range []string{"document_days_insert", "document_days_update", "document_days_delete"} {
		if _, err := without.db.Exec("DROP TRIGGER " + tr); err != nil {
			b.Fatal(err)
		}
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
	for i := 0; b.Loop(); i++ {
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
// rest of a create or a change (the job, the event, the history): an
// insert of a document, and its three changes of status (signed,
// submitted, accepted: only the last moves it in the totals), each its own
// transaction, on a store with the triggers and on one without, one after
// the other in each iteration. Medians of the iterations: with-ns/insert,
// without-ns/insert, and the three changes' with-ns/status and
// without-ns/status.
func BenchmarkDayTotalsTriggers(b *testing.B) {
	payload, _ := json.Marshal(benchPayload("E310000000001"))
	type side struct {
		db             *DB
		tenantID       string
		insert, status []time.Duration
	}
	const insert = `INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, itbis, issue_date, delivery_status, payload, created_at, updated_at)
		VALUES (?, ?, 'TesteCF', '31', ?, 'queued_for_signing', '23600.00', '3600.00', '2026-11-27', 'not_sent', ?, '2026-11-27T12:00:00Z', '2026-11-27T12:00:00Z')`
	var sides []*side
	for _, totals := range []bool{true, false} {
		db := mustOpenInternal(b)
		if !totals {
			for _, tr := range []string{"document_days_insert", "document_days_update", "document_days_delete"} {
				if _, err := db.db.Exec("DROP TRIGGER " + tr); err != nil {
					b.Fatal(err)
				}
			}
		}
		sides = append(sides, &side{db: db, tenantID: storetest.MustCreateTenant(b, db).ID})
	}
	// Prepared once, as the store's statements are (stmt.go): a trigger
	// is compiled into the statements it fires from.
	stmts := map[*DB]map[string]*sql.Stmt{}
	exec := func(db *DB, q string, args ...any) {
		if stmts[db] == nil {
			stmts[db] = map[string]*sql.Stmt{}
		}
		st := stmts[db][q]
		if st == nil {
			var err error
			if st, err = db.db.Prepare(q); err != nil {
				b.Fatal(err)
			}
			stmts[db][q] = st
		}
		tx, err := db.db.BeginTx(b.Context(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Stmt(st).Exec(args...); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	statuses := []string{"signed", "submitted", "accepted"}
	for i := 0; b.Loop(); i++ {
		for _, s := range sides {
			id := fmt.Sprintf("doc%08d", i)
			start := time.Now()
			exec(s.db, insert, id, s.tenantID, fmt.Sprintf("E31%010d", i), string(payload))
			s.insert = append(s.insert, time.Since(start))
			start = time.Now()
			for _, st := range statuses {
				exec(s.db, `UPDATE documents SET status = ? WHERE tenant_id = ? AND environment = 'TesteCF' AND id = ?`, st, s.tenantID, id)
			}
			s.status = append(s.status, time.Since(start))
		}
	}
	for i, name := range []string{"with", "without"} {
		b.ReportMetric(median(sides[i].insert), name+"-ns/insert")
		b.ReportMetric(median(sides[i].status), name+"-ns/status")
	}
}

// benchPayload is an invoice's payload with 20 lines (3 KB).
func benchPayload(encf string) map[string]any {
	items := make([]map[string]string, 20)
	for i := range items {
		items[i] = map[string]string{"NombreItem": fmt.Sprintf("Artículo %d de ferretería", i), "CantidadItem": "2.00", "PrecioUnitarioItem": "500.00", "MontoItem": "1000.00"}
	}
	return map[string]any{"ECF": map[string]any{"eNCF": encf, "DetallesItems": items,
		"Encabezado": map[string]any{"Totales": map[string]string{"MontoTotal": "23600.00", "TotalITBIS": "3600.00"}}}}
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

// BenchmarkDayTotalsMillion writes a million documents of one company
// over a year (SQL, so that it takes minutes, not hours; the triggers fire for
// each) and shows what Inicio's read of them costs: its plan and time
// through the day totals, against the same sums computed from the
// documents. Logged for docs/benchmarks.md; a few minutes and 1 GB of
// disk: go test -run='^$' -bench=DayTotalsMillion -benchtime=1x.
func BenchmarkDayTotalsMillion(t *testing.B) {
	db := mustOpenInternal(t)
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
		if _, err := db.db.ExecContext(t.Context(), `
			WITH RECURSIVE g(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM g WHERE n < ?)
			INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, itbis, issue_date, delivery_status, payload, created_at, updated_at)
			SELECT 'd' || n, ?, 'TesteCF', '3' || (1 + n % 3), 'E3' || (1 + n % 3) || printf('%010d', n),
				CASE n % 10 WHEN 6 THEN 'rejected' WHEN 7 THEN 'accepted_conditional' WHEN 8 THEN 'submitted' ELSE 'accepted' END,
				(500 + n % 9000) || '.' || printf('%02d', n % 100), (90 + n % 1600) || '.' || printf('%02d', n % 100),
				date('2026-11-27', '-' || (n % 365) || ' days'), 'not_sent', '{}', '2026-11-27T12:00:00Z', '2026-11-27T12:00:00Z'
			FROM g`, i*batch+1, (i+1)*batch, tenant); err != nil {
			t.Fatal(err)
		}
		t.Logf("documents %d–%d: %s", i*batch+1, (i+1)*batch, time.Since(t0).Round(time.Millisecond))
	}
	t.Logf("1,000,000 documents written in %s", time.Since(start).Round(time.Second))
	if _, err := db.db.ExecContext(t.Context(), `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	var days int
	if err := db.db.QueryRowContext(t.Context(), `SELECT count(*) FROM document_days WHERE tenant_id = ?`, tn.ID).Scan(&days); err != nil {
		t.Fatal(err)
	}
	t.Logf("the company's day totals: %d rows for 900,000 documents", days)
	from, to := sello.Date{Year: 2025, Month: 12, Day: 1}, sello.Date{Year: 2026, Month: 11, Day: 30}
	explain := func(q string, args ...any) {
		t.Helper()
		rows, err := db.db.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			t.Log("  " + detail)
		}
	}
	timed := func(what string, f func() int) {
		t.Helper()
		var times []time.Duration
		n := 0
		for range 10 {
			t0 := time.Now()
			n = f()
			times = append(times, time.Since(t0))
		}
		t.Logf("%s: %d rows, median %.2f ms of 10", what, n, median(times)/1e6)
	}
	t.Log("Inicio's read, from the day totals:")
	explain(issuedTotalsSQL, tn.ID, "TesteCF", formatDate(from), formatDate(to))
	timed("FindIssuedTotals over 12 months", func() int {
		ts, err := db.FindIssuedTotals(t.Context(), tn.ID, sello.EnvTest, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return len(ts)
	})
	const fromDocuments = `SELECT issue_date, type, day_state, count(*), sum(total_cents), sum(itbis_cents) FROM documents
		WHERE tenant_id = ? AND environment = 'TesteCF' AND issue_date >= ? AND issue_date <= ?
		GROUP BY issue_date, type, day_state`
	t.Log("the same sums from the documents (what the day totals spare):")
	explain(fromDocuments, tn.ID, formatDate(from), formatDate(to))
	timed("the same sums from the documents", func() int {
		rows, err := db.db.QueryContext(t.Context(), fromDocuments, tn.ID, formatDate(from), formatDate(to))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			n++
		}
		return n
	})
}
