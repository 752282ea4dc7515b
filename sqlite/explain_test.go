package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
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

// TestDocumentQueriesUseIndexes: the documents' list filtered by buyer,
// first page and a later one, walks documents_tenant_env_buyer_created
// (no sort, and none of the tenant's other documents read), a document's
// events are a range of events_tenant_document, both of migration 24, and
// their webhook deliveries are found by their event ids: the queries as
// the store builds them, on a store without statistics (as Sello's SQLite
// runs: it never runs ANALYZE).
func TestDocumentQueriesUseIndexes(t *testing.T) {
	db := mustOpenInternal(t)
	buyer := sello.DocumentFilter{BuyerRNC: "131000001"}
	later := buyer
	later.Cursor = sello.FormatCursor(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), "doc")
	for _, c := range []struct {
		name   string
		filter *sello.DocumentFilter
		want   string
		sorts  bool
	}{
		{"Buyer", &buyer, "SEARCH documents USING INDEX documents_tenant_env_buyer_created (tenant_id=? AND environment=? AND buyer_rnc=?", false},
		{"BuyerLater", &later, "SEARCH documents USING INDEX documents_tenant_env_buyer_created (tenant_id=? AND environment=? AND buyer_rnc=?", false},
		// A document's few events are sorted by seq, their deliveries by
		// their creation.
		{"DocumentEvents", nil, "SEARCH events USING INDEX events_tenant_document (tenant_id=? AND <expr>=?)", true},
		{"EventDeliveries", nil, "SEARCH webhook_deliveries USING INDEX webhook_deliveries_event (event_id=?)", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, args := documentEventsSQL, []any{"t", "TesteCF", "doc"}
			if c.name == "EventDeliveries" {
				q, args = eventDeliveriesSQL, []any{`["ev1","ev2"]`, "t"}
			}
			if c.filter != nil {
				var err error
				if q, args, err = listDocumentsSQL("t", sello.EnvTest, *c.filter, 51); err != nil {
					t.Fatal(err)
				}
			}
			got := queryPlan(t, db, q, args...)
			if !strings.Contains(got, c.want) {
				t.Errorf("plan %q, want %q", got, c.want)
			}
			if !c.sorts && strings.Contains(got, "TEMP B-TREE") {
				t.Errorf("plan %q, want no sort", got)
			}
		})
	}
}

// queryPlan is SQLite's plan of q with args, its lines' details joined
// by "; ".
func queryPlan(t *testing.T, db *DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.db.Query("EXPLAIN QUERY PLAN "+q, args...)
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

// TestInboundConfirmQueueUsesKey holds the sweep's take of the receipts'
// confirmation queue (takeInboundConfirmsSQL) to the queue's key, in order
// with no sort, and deletes each entry through it. Every entry of the
// queue is due, so the walk stops after the batch (LIMIT); inbound_documents
// is not read.
func TestInboundConfirmQueueUsesKey(t *testing.T) {
	db := mustOpenInternal(t)
	if got := queryPlan(t, db, takeInboundConfirmsSQL, 200); got != "SEARCH inbound_confirm_queue USING PRIMARY KEY (inbound_document_id=?); LIST SUBQUERY 1; SCAN inbound_confirm_queue" {
		t.Errorf("plan %q, want the key's first entries (a scan in key order, no TEMP B-TREE), deleted through the key", got)
	}
}
