package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/postgres/pgtest"
)

// TestReceiverQueriesUseIndexes: the prune of expired seeds and tokens,
// the count of an issuer's documents, its hours' counts and their prune,
// and the receipt's lookups under an
// e-NCF can be ranges of an index (the planner, told not to scan tables,
// finds one), not scans of a table (or of a tenant's rows) that a flood
// makes long. The refutation of an e-NCF's documents may use any index
// (empty index: "any").
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
		{"CountFromIssuer", countInboundFromIssuerSQL, []any{"t", "TesteCF", "131000001", now}, "inbound_documents_issuer_received"},
		{"ReceiptSame", inboundSameSQL, []any{"E310000000001", "131000001", "t", "TesteCF", make([]byte, 32)}, "inbound_documents_bytes"},
		{"ReceiptAccepted", inboundAcceptedSQL, []any{"E310000000001", "131000001", "t", "TesteCF"}, "inbound_documents_accepted"},
		{"ReceiptUnconfirmed", inboundUnconfirmedSQL, []any{"E310000000001", "131000001", "t", "TesteCF", now}, "inbound_documents_unconfirmed"},
		{"IssuerHours", countIssuerReceiptsSQL, []any{"t", "TesteCF", "131000001", now}, "inbound_issuer_receipts_pkey"},
		{"PruneIssuerHours", pruneIssuerReceiptsSQL, []any{now}, "inbound_issuer_receipts_hour"},
		{"Refute", refuteInboundSQL, []any{"refuted", "m", now, "E310000000001", "131000001", "t", "TesteCF", "id"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := explainPlan(t, db, true, c.sql, c.args...)
			switch {
			case c.index == "":
				if !strings.Contains(got, "Index Scan using inbound_documents_") && !strings.Contains(got, "Bitmap Index Scan on inbound_documents_") {
					t.Errorf("plan %q, want a scan of an index of inbound_documents", got)
				}
			case !strings.Contains(got, " on "+c.index+" ") && !strings.Contains(got, "using "+c.index+" "):
				t.Errorf("plan %q, want a scan of the index %s", got, c.index)
			}
		})
	}
}

// TestInboundConfirmQueueUsesKey: the sweep of the confirmation queue
// takes the first entries of its key and deletes them through it, with the
// planner left free and told not to scan tables alike: every entry of the
// queue is due, so the walk of the key stops after the batch, with no sort
// of the queue and no scan of inbound_documents.
func TestInboundConfirmQueueUsesKey(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for name, noSeqScan := range map[string]bool{"Free": false, "NoSeqScan": true} {
		t.Run(name, func(t *testing.T) {
			got := explainPlan(t, db, noSeqScan, takeInboundConfirmsSQL, 200)
			batch := strings.Contains(got, "Index Scan using inbound_confirm_queue_pkey on inbound_confirm_queue")
			deleted := strings.Contains(got, "Index Cond: (inbound_document_id = ANY")
			if !batch || !deleted || strings.Contains(got, "Seq Scan") || strings.Contains(got, "Sort") || strings.Contains(got, "inbound_documents") {
				t.Errorf("plan %q, want the first entries of inbound_confirm_queue_pkey, deleted through it", got)
			}
		})
	}
}

// explainPlan is PostgreSQL's plan of sql over args, its lines trimmed and
// joined by "; ", with sequential scans off when noSeqScan (on empty
// tables the planner would rather scan them: off, it shows the index it
// can use).
func explainPlan(t *testing.T, db *DB, noSeqScan bool, sql string, args ...any) string {
	t.Helper()
	tx, err := db.pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if noSeqScan {
		if _, err := tx.Exec(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := tx.Query(t.Context(), "EXPLAIN "+sql, args...)
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
	return strings.Join(plan, "; ")
}
