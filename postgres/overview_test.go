package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
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
			tx, err := db.pool.Begin(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(t.Context())
			if _, err := tx.Exec(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
			rows, err := tx.Query(t.Context(), "EXPLAIN "+c.sql, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, strings.TrimSpace(line))
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(plan, "; ")
			t.Logf("%s: %s", c.name, got)
			if !strings.Contains(got, " on "+c.index+" ") && !strings.Contains(got, "using "+c.index+" ") {
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
		"2026-03-10 31 submitted 1 121.5 18.5",
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
