package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/postgres/pgtest"
)

// TestReceiverQueriesUseIndexes: the prune of expired seeds and tokens and
// the count of an issuer's documents can be ranges of an index (the
// planner, told not to scan tables, finds one), not scans of a table (or
// of a tenant's rows) that a flood makes long.
func TestReceiverQueriesUseIndexes(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Now()
	for _, c := range []struct {
		name, sql string
		args      []any
		index     string
	}{
		{"PruneSeeds", deleteExpiredSeedsSQL, []any{now}, "receiver_seeds_expires"},
		{"PruneTokens", deleteExpiredTokensSQL, []any{now}, "receiver_tokens_expires"},
		{"IssuerUnaccepted", issuerUnacceptedSQL, []any{"t", "TesteCF", "131000001", now, 10}, "inbound_documents_issuer_received"},
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
			if !strings.Contains(got, " on "+c.index) && !strings.Contains(got, "using "+c.index+" ") {
				t.Errorf("plan %q, want a scan of the index %s", got, c.index)
			}
		})
	}
}
