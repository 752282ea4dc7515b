package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
)

// TestReceiverQueriesUseIndexes: the prune of expired seeds and tokens,
// the count of an issuer's documents, its hours' counts and their prune,
// and the receipt's lookups under an
// e-NCF can be ranges of an index (the planner, told not to scan tables,
// finds one), not scans of a table (or of a tenant's rows) that a flood
// makes long. The refutation of an e-NCF's documents may use any index
// (empty index: "any"). The tables hold a company's rows and their
// statistics (mustCompanyRows): on empty tables every index costs the
// same and the planner takes the newest that applies.
func TestReceiverQueriesUseIndexes(t *testing.T) {
	db := mustCompanyRows(t)
	now := time.Now()
	for _, c := range []struct {
		name, sql string
		args      []any
		index     string
	}{
		{"PruneSeeds", deleteExpiredSeedsSQL, []any{now}, "receiver_seeds_expires"},
		{"PruneTokens", deleteExpiredTokensSQL, []any{now}, "receiver_tokens_expires"},
		// The quota counts the last 24 hours.
		{"CountFromIssuer", countInboundFromIssuerSQL, []any{"t", "TesteCF", "131000001", now.Add(-24 * time.Hour)}, "inbound_documents_issuer_received"},
		{"ReceiptSame", inboundSameSQL, []any{"E310000000001", "131000001", "t", "TesteCF", make([]byte, 32)}, "inbound_documents_bytes"},
		{"ReceiptAccepted", inboundAcceptedSQL, []any{"E310000000001", "131000001", "t", "TesteCF"}, "inbound_documents_accepted"},
		{"ReceiptUnconfirmed", inboundUnconfirmedSQL, []any{"E310000000001", "131000001", "t", "TesteCF", now.Add(-24 * time.Hour)}, "inbound_documents_unconfirmed"},
		{"IssuerHours", countIssuerReceiptsSQL, []any{"t", "TesteCF", "131000001", sello.IssuerQuotaHour(now.Add(-24 * time.Hour))}, "inbound_issuer_receipts_pkey"},
		{"PruneIssuerHours", pruneIssuerReceiptsSQL, []any{now}, "inbound_issuer_receipts_hour"},
		{"Refute", refuteInboundSQL, []any{"refuted", "m", now, "E310000000001", "131000001", "t", "TesteCF", "id"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := indexPlan(t, db, c.sql, c.args...)
			switch {
			case c.index == "":
				if !strings.Contains(got, "Index Scan using inbound_documents_") && !strings.Contains(got, "Bitmap Index Scan on inbound_documents_") {
					t.Errorf("plan %q, want a scan of an index of inbound_documents", got)
				}
			case !usesIndex(got, c.index):
				t.Errorf("plan %q, want a scan of the index %s", got, c.index)
			}
		})
	}
}

// TestListQueriesUseIndexes: the received documents' list (first page and
// a later one), the documents' list filtered by buyer (likewise), the
// events feed (likewise, of a type, and its probe) and a document's
// events, as the store builds them, are scans of their
// indexes (migration 24), the lists' with no sort (but a buyer's few
// documents'): a page reads its rows, not every document of the tenant's
// environment.
func TestListQueriesUseIndexes(t *testing.T) {
	db := mustCompanyRows(t)
	at := time.Now().Add(-time.Hour)
	inbound := func(f sello.InboundFilter) func() (string, []any, error) {
		return func() (string, []any, error) { return listInboundSQL("t", sello.EnvTest, f, 51) }
	}
	documents := func(f sello.DocumentFilter) func() (string, []any, error) {
		return func() (string, []any, error) { return listDocumentsSQL("t", sello.EnvTest, f, 51) }
	}
	events := func(f sello.EventFilter, limit int) func() (string, []any, error) {
		return func() (string, []any, error) {
			q, args := listEventsSQL("t", sello.EnvTest, f, limit)
			return q, args, nil
		}
	}
	for _, c := range []struct {
		name  string
		query func() (string, []any, error)
		index string
		sorts bool
	}{
		{"Inbound", inbound(sello.InboundFilter{}), "inbound_documents_list", false},
		{"InboundLater", inbound(sello.InboundFilter{Cursor: sello.FormatCursor(at, "in1")}), "inbound_documents_list", false},
		{"Buyer", documents(sello.DocumentFilter{BuyerRNC: "130000099"}), "documents_tenant_env_buyer_created", false},
		{"BuyerLater", documents(sello.DocumentFilter{BuyerRNC: "130000099", Cursor: sello.FormatCursor(at, "doc1")}), "documents_tenant_env_buyer_created", false},
		// A buyer with fewer documents than a few pages: the planner
		// reads them all from the index and sorts them.
		{"BuyerFew", documents(sello.DocumentFilter{BuyerRNC: "130000008"}), "documents_tenant_env_buyer_created", true},
		// The events feed's pages, the first, a later one, one type's and
		// the probe of one event after a full page: a walk of the index
		// that stops after the page, never every event after the cursor
		// sorted (listEventsSQL).
		{"Events", events(sello.EventFilter{}, 201), "events_tenant_env_tx_seq", false},
		{"EventsLater", events(sello.EventFilter{After: sello.EventPosition{Tx: 1, Seq: 100}}, 201), "events_tenant_env_tx_seq", false},
		// Every event here has the type: the planner filters the walk of
		// the index of all types.
		{"EventsType", events(sello.EventFilter{Type: "ecf.status_changed"}, 51), "events_tenant_env_tx_seq", false},
		{"EventsProbe", events(sello.EventFilter{After: sello.EventPosition{Tx: 1, Seq: 100}}, 1), "events_tenant_env_tx_seq", false},
		// A document's few events are sorted.
		{"DocumentEvents", func() (string, []any, error) { return documentEventsSQL, []any{"t", "TesteCF", "doc1"}, nil }, "events_tenant_document", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, args, err := c.query()
			if err != nil {
				t.Fatal(err)
			}
			got := indexPlan(t, db, q, args...)
			if !usesIndex(got, c.index) {
				t.Errorf("plan %q, want a scan of the index %s", got, c.index)
			}
			if !c.sorts && strings.Contains(got, "Sort") {
				t.Errorf("plan %q, want no sort", got)
			}
		})
	}
}

// mustCompanyRows is a store whose tables hold two companies' rows, as
// two weeks of work leave them, analyzed: 4,000 received documents (from
// 40 issuers, one every 5 minutes, most accepted by DGII) with their
// issuers' hours, 4,000 issued documents (two in five to one buyer,
// 130000099; two in five to 50 others; type 32 without one) and three
// events of each.
// Tenant "t" has three quarters of them, in TesteCF nine in ten.
func mustCompanyRows(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`INSERT INTO tenants (id, rnc, name, plan_name, plan_rate, plan_burst, created_at)
		VALUES ('t', '130000001', 'Comprador', 'default', 10, 20, now()), ('u', '130000002', 'Otro', 'default', 10, 20, now())`,
		`CREATE TEMP TABLE fill AS SELECT n,
			CASE WHEN n % 4 = 0 THEN 'u' ELSE 't' END AS tenant,
			CASE WHEN n % 10 = 0 THEN 'eCF' ELSE 'TesteCF' END AS env,
			now() - n * interval '5 minutes' AS at
		FROM generate_series(1, 4000) n`,
		`INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc, issue_date,
			total, xml, acuse, approval, received_at, updated_at, xml_sha256, dgii_status)
		SELECT 'in' || n, tenant, env, '31', 'E31' || lpad(n::text, 10, '0'), '1310000' || lpad((n % 40)::text, 2, '0'), 'Proveedor', '130000001',
			at::date, '1180.00', '\x00', '\x00', 'pending', at, at, sha256(n::text::bytea),
			CASE WHEN n % 5 = 0 THEN 'pending' WHEN n % 7 = 0 THEN NULL ELSE 'accepted' END
		FROM fill`,
		// The issuers' hours, as the receipts and acceptances keep them
		// (migration 23's backfill).
		`INSERT INTO inbound_issuer_receipts (tenant_id, environment, issuer_rnc, hour, n)
		SELECT tenant_id, environment, issuer_rnc, date_trunc('hour', received_at, 'UTC'), count(*)
		FROM inbound_documents
		WHERE dgii_status IS NULL OR dgii_status <> 'accepted'
		GROUP BY 1, 2, 3, 4`,
		`INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, buyer_rnc, issue_date, delivery_status, payload, created_at, updated_at)
		SELECT 'doc' || n, tenant, env, CASE WHEN n % 5 = 0 THEN '32' ELSE '31' END, 'E31' || lpad(n::text, 10, '0'),
			CASE WHEN n % 10 = 0 THEN 'rejected' ELSE 'accepted' END, 1180, CASE WHEN n % 5 = 0 THEN '' WHEN n % 5 < 3 THEN '130000099' ELSE '1300000' || lpad((n % 50)::text, 2, '0') END,
			at::date, 'delivered', '{}', at, at
		FROM fill`,
		`INSERT INTO events (id, tenant_id, environment, type, created_at, document, data)
		SELECT 'ev' || n || '-' || k, tenant, env, 'ecf.status_changed', at, jsonb_build_object('id', 'doc' || n, 'encf', 'E31' || lpad(n::text, 10, '0')), '{}'
		FROM fill, generate_series(1, 3) k`,
		`ANALYZE`,
	} {
		if _, err := db.pool.Exec(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

// indexPlan is PostgreSQL's plan of q with args, its lines joined by
// "; ", with table scans off: the index the planner finds, if any.
func indexPlan(t *testing.T, db *DB, q string, args ...any) string {
	t.Helper()
	return explainPlan(t, db, true, q, args...)
}

// explainPlan is PostgreSQL's plan of q with args, its lines trimmed and
// joined by "; ", with sequential scans off when noSeqScan.
func explainPlan(t *testing.T, db *DB, noSeqScan bool, q string, args ...any) string {
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
	rows, err := tx.Query(t.Context(), "EXPLAIN "+q, args...)
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

// usesIndex reports whether plan scans index.
func usesIndex(plan, index string) bool {
	return strings.Contains(plan, " on "+index+" ") || strings.Contains(plan, "using "+index+" ")
}

// TestInboundConfirmQueueUsesKey holds the sweep's take of the receipts'
// confirmation queue (takeInboundConfirmsSQL) to the queue's key: it
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
