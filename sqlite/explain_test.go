package sqlite

import (
	"strings"
	"testing"
)

// TestReceiverQueriesUseIndexes: the prune of expired seeds and tokens and
// the count of an issuer's documents are ranges of an index, not scans of
// a table (or of a tenant's rows) that a flood makes long.
func TestReceiverQueriesUseIndexes(t *testing.T) {
	db := mustOpenInternal(t)
	for _, c := range []struct {
		name, sql string
		args      []any
		want      []string // fragments of the plan
	}{
		{"PruneSeeds", deleteExpiredSeedsSQL, []any{"2026-01-01"}, []string{"INDEX receiver_seeds_expires ("}},
		{"PruneTokens", deleteExpiredTokensSQL, []any{"2026-01-01"}, []string{"INDEX receiver_tokens_expires ("}},
		// The issuer's documents from its index alone, then those DGII has
		// not accepted from the partial index of accepted ones: never the
		// row's dgii_status, behind its XML (issuerUnacceptedSQL).
		{"IssuerDocuments", issuerDocumentsSQL(10), []any{"t", "TesteCF", "131000001", "2026-01-01"},
			[]string{"COVERING INDEX inbound_documents_issuer_received ("}},
		{"IssuerUnaccepted", issuerUnacceptedSQL(10), []any{"t", "TesteCF", "131000001", "2026-01-01"},
			[]string{"INDEX inbound_documents_issuer_received (", "COVERING INDEX inbound_documents_accepted ("}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := db.db.Query("EXPLAIN QUERY PLAN "+c.sql, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			got := strings.Join(plan, "; ")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("plan %q, want a search of %s…", got, w)
				}
			}
			if strings.Contains(got, "PRIMARY KEY") || strings.Contains(got, "TEMP B-TREE") {
				t.Errorf("plan %q looks rows up by rowid or sorts", got)
			}
		})
	}
}
