package postgres

import (
	"slices"
	"testing"

	"github.com/sello-do/sello/postgres/pgtest"
)

// TestAnalyzeStale: a tenant's 1,000 documents written to new tables, with
// no ANALYZE since (autovacuum's first round not come yet, or autovacuum
// off), and the lookups of a create and a transition, by e-NCF and by id,
// do not use their unique indexes: the planner, without statistics, takes
// an index that starts with tenant_id and environment as just as good, and
// walks the tenant's documents. AnalyzeStale analyzes the tables changed
// since, after which they do; and leaves them alone while they are not
// changed again.
func TestAnalyzeStale(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO tenants (id, rnc, name, plan_name, plan_rate, plan_burst, created_at)
		VALUES ('t', '130000001', 'Emisor', 'default', 10, 20, now())`,
		`INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, buyer_rnc, issue_date, delivery_status, payload, created_at, updated_at)
		SELECT 'doc' || n, 't', 'TesteCF', '31', 'E31' || lpad(n::text, 10, '0'), 'accepted', 1180, '130000099', now()::date, 'delivered', '{}', now(), now()
		FROM generate_series(1, 1000) n`,
		// The counts reach the statistics views when the backend is idle
		// next, at most once a second unless told.
		`SELECT pg_stat_force_next_flush()`,
	} {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Release()

	const (
		byENCF = `SELECT id FROM documents WHERE tenant_id = $1 AND environment = $2 AND encf = $3`
		byID   = `SELECT ` + summaryColumns + ` FROM documents WHERE tenant_id = $1 AND environment = $2 AND id = $3 FOR UPDATE`
	)
	t.Logf("before: by e-NCF %q; by id %q", explainPlan(t, db, false, byENCF, "t", "TesteCF", "E310000000500"),
		explainPlan(t, db, false, byID, "t", "TesteCF", "doc500"))

	got, err := db.AnalyzeStale(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, "documents") {
		t.Errorf("analyzed %q, want documents among them", got)
	}
	if plan := explainPlan(t, db, false, byENCF, "t", "TesteCF", "E310000000500"); !usesIndex(plan, "documents_tenant_id_environment_encf_key") {
		t.Errorf("by e-NCF: plan %q, want the unique index of (tenant_id, environment, encf)", plan)
	}
	if plan := explainPlan(t, db, false, byID, "t", "TesteCF", "doc500"); !usesIndex(plan, "documents_pkey") {
		t.Errorf("by id: plan %q, want the primary key", plan)
	}

	got, err = db.AnalyzeStale(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, "documents") {
		t.Errorf("analyzed %q again with nothing changed", got)
	}

	// Where autovacuum is off, a table is analyzed again once it has
	// doubled (where it is on, autovacuum does it).
	var autovacuum bool
	if err := db.pool.QueryRow(t.Context(), `SELECT current_setting('autovacuum')::boolean`).Scan(&autovacuum); err != nil {
		t.Fatal(err)
	}
	if autovacuum {
		return
	}
	mustDocuments := func(from, to int) {
		t.Helper()
		conn, err := db.pool.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		if _, err := conn.Exec(t.Context(), `
			INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, buyer_rnc, issue_date, delivery_status, payload, created_at, updated_at)
			SELECT 'doc' || n, 't', 'TesteCF', '31', 'E31' || lpad(n::text, 10, '0'), 'accepted', 1180, '130000099', now()::date, 'delivered', '{}', now(), now()
			FROM generate_series($1::int, $2::int) n`, from, to); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(t.Context(), `SELECT pg_stat_force_next_flush()`); err != nil {
			t.Fatal(err)
		}
	}
	mustDocuments(1001, 1900)
	if got, err = db.AnalyzeStale(t.Context()); err != nil {
		t.Fatal(err)
	} else if slices.Contains(got, "documents") {
		t.Errorf("analyzed %q at 1,900 documents, 1,000 in its statistics", got)
	}
	mustDocuments(1901, 2000)
	if got, err = db.AnalyzeStale(t.Context()); err != nil {
		t.Fatal(err)
	} else if !slices.Contains(got, "documents") {
		t.Errorf("analyzed %q at 2,000 documents, 1,000 in its statistics: want documents", got)
	}
}
