package sqlite

import (
	"strings"
	"testing"
)

// TestReceiverQueriesUseIndexes: the prune of expired seeds and tokens,
// the count of an issuer's documents, its hours' counts and their prune,
// and the receipt's lookups under an
// e-NCF are ranges of an index, not scans of a table (or of a tenant's
// rows) that a flood makes long. The accepted document and the count of
// unconfirmed ones are read from the index alone (COVERING): a row's
// columns after its XML are reached through the XML's overflow pages.
func TestReceiverQueriesUseIndexes(t *testing.T) {
	db := mustOpenInternal(t)
	for _, c := range []struct {
		name, sql string
		args      []any
		index     string
		covering  bool
	}{
		{"PruneSeeds", deleteExpiredSeedsSQL, []any{"2026-01-01"}, "receiver_seeds_expires", false},
		{"PruneTokens", deleteExpiredTokensSQL, []any{"2026-01-01"}, "receiver_tokens_expires", false},
		{"CountFromIssuer", countInboundFromIssuerSQL, []any{"t", "TesteCF", "131000001", "2026-01-01"}, "inbound_documents_issuer_received", true},
		{"ReceiptSame", inboundSameSQL, []any{"E310000000001", "131000001", "t", "TesteCF", make([]byte, 32)}, "inbound_documents_bytes", false},
		{"ReceiptAccepted", inboundAcceptedSQL, []any{"E310000000001", "131000001", "t", "TesteCF"}, "inbound_documents_accepted_ref", true},
		{"ReceiptUnconfirmed", inboundUnconfirmedSQL, []any{"E310000000001", "131000001", "t", "TesteCF", "2026-01-01"}, "inbound_documents_unconfirmed", true},
		{"IssuerHours", countIssuerReceiptsSQL, []any{"t", "TesteCF", "131000001", "2026-01-01"}, "PRIMARY KEY", false},
		{"PruneIssuerHours", pruneIssuerReceiptsSQL, []any{"2026-01-01"}, "inbound_issuer_receipts_hour", false},
		{"Refute", refuteInboundSQL, []any{"refuted", "m", "2026-01-01", "E310000000001", "131000001", "t", "TesteCF", "id"}, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := queryPlan(t, db, c.sql, c.args...)
			switch {
			case c.index == "": // any index, no scan
				if !strings.HasPrefix(got, "SEARCH inbound_documents USING INDEX ") || strings.Contains(got, "SCAN") {
					t.Errorf("plan %q, want a search of an index of inbound_documents", got)
				}
			case c.index == "PRIMARY KEY": // a WITHOUT ROWID table's key
				if !strings.Contains(got, "USING PRIMARY KEY (") {
					t.Errorf("plan %q, want a search of the primary key", got)
				}
			case !strings.Contains(got, "INDEX "+c.index+" ("):
				t.Errorf("plan %q, want a search of the index %s", got, c.index)
			case c.covering && !strings.Contains(got, "COVERING INDEX "+c.index+" ("):
				t.Errorf("plan %q, want the index %s to cover the query", got, c.index)
			}
		})
	}
}

// TestInboundListUsesIndex: the received documents' list, first page and
// a later one, walks inbound_documents_list backwards instead of sorting
// every document of the tenant's environment.
func TestInboundListUsesIndex(t *testing.T) {
	db := mustOpenInternal(t)
	base := `SELECT ` + inboundListColumns + ` FROM inbound_documents WHERE tenant_id = ? AND environment = ?`
	for name, q := range map[string]string{
		"First": base + ` ORDER BY received_at DESC, id DESC LIMIT ?`,
		"Later": base + ` AND (received_at, id) < (?, ?) ORDER BY received_at DESC, id DESC LIMIT ?`,
	} {
		t.Run(name, func(t *testing.T) {
			args := []any{"t", "TesteCF", 51}
			if name == "Later" {
				args = []any{"t", "TesteCF", "2026-01-01", "id", 51}
			}
			got := queryPlan(t, db, q, args...)
			if !strings.Contains(got, "INDEX inbound_documents_list (") || strings.Contains(got, "TEMP B-TREE") {
				t.Errorf("plan %q, want a walk of inbound_documents_list with no sort", got)
			}
		})
	}
}

// TestInboundConfirmQueueUsesKey: the sweep of the confirmation queue
// walks the queue's key (a WITHOUT ROWID table is its key's tree) in order,
// with no sort, and deletes each entry through it. Every entry of the
// queue is due, so the walk stops after the batch (LIMIT); inbound_documents
// is not read.
func TestInboundConfirmQueueUsesKey(t *testing.T) {
	db := mustOpenInternal(t)
	if got := queryPlan(t, db, takeInboundConfirmsSQL, 200); got != "SEARCH inbound_confirm_queue USING PRIMARY KEY (inbound_document_id=?); LIST SUBQUERY 1; SCAN inbound_confirm_queue" {
		t.Errorf("plan %q, want the key's first entries (a scan in key order, no TEMP B-TREE), deleted through the key", got)
	}
}

// queryPlan is SQLite's plan of sql over args: its steps' details joined
// by "; ".
func queryPlan(t *testing.T, db *DB, sql string, args ...any) string {
	t.Helper()
	rows, err := db.db.Query("EXPLAIN QUERY PLAN "+sql, args...)
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
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}
