package postgres

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// statementCounter is a pgx tracer that counts the round trips and the
// statements of a pool's connections: a query is one of each, a batch one
// round trip of as many statements as it queues. Statements pgx prepares
// first (a connection's first use of an SQL text) are not counted: count
// after a warm-up.
type statementCounter struct {
	mu                sync.Mutex
	trips, statements int
	sqls              []string // every statement's SQL, since the last take
}

func (c *statementCounter) add(trips, statements int, sql string) {
	c.mu.Lock()
	c.trips += trips
	c.statements += statements
	if statements > 0 {
		c.sqls = append(c.sqls, sql)
	}
	c.mu.Unlock()
}

// taken returns the statements' SQL since the last take, and resets it.
func (c *statementCounter) taken() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	sqls := c.sqls
	c.sqls = nil
	return sqls
}

// take returns the counts and resets them.
func (c *statementCounter) take() (trips, statements int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	trips, statements = c.trips, c.statements
	c.trips, c.statements, c.sqls = 0, 0, nil
	return trips, statements
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.add(1, 1, d.SQL)
	return ctx
}
func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *statementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.add(1, 0, "")
	return ctx
}
func (c *statementCounter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.add(0, 1, d.SQL)
}
func (c *statementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// mustCountedDB opens a store in a fresh schema whose store pool has one
// connection, traced by the counter it returns.
func mustCountedDB(t *testing.T) (*DB, *statementCounter) {
	t.Helper()
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := &statementCounter{}
	cfg := db.pool.Config()
	cfg.ConnConfig.Tracer = c
	cfg.MaxConns, cfg.MinConns = 1, 0
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	db.pool.Close()
	db.pool = pool
	return db, c
}

// TestUpdateDocumentRoundTrips counts what a transition costs the
// database: with no webhook endpoint, two round trips (BEGIN with the
// locking read; the update, the event and COMMIT) and five statements;
// with an active endpoint, one round trip more for its delivery's River
// job, and its delivery's insert travels with the event. The writes are
// all there after (history, event, delivery, job).
func TestUpdateDocumentRoundTrips(t *testing.T) {
	for _, c := range []struct {
		name                   string
		endpoint               bool
		trips, statements, max int
	}{
		{"NoEndpoint", false, 2, 5, 0},
		{"Endpoint", true, 3, 7, 1}, // + the delivery, and River's insert of its job (and, at times, its notify)
	} {
		t.Run(c.name, func(t *testing.T) {
			db, count := mustCountedDB(t)
			tn := storetest.MustCreateTenant(t, db)
			storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
			if c.endpoint {
				storetest.MustCreateWebhookEndpoint(t, db, tn.ID, sello.EnvTest)
			}
			prepare := func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) {
				return &sello.PreparedDocument{Payload: json.RawMessage(`{"ECF":{}}`), Total: "10.00", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 1}}, nil
			}
			signedAt := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			steps := []sello.DocumentChange{
				{From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned, SignedXML: []byte("<ECF/>"),
					SecurityCode: "abc123", SignedAt: &signedAt, QRURL: "https://dgii.example/qr", EventType: sello.EventECFSigned},
				{From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: "track-1", EventType: sello.EventECFSubmitted},
				{From: []sello.Status{sello.StatusSubmitted}, Status: sello.StatusAccepted, DGII: &sello.DGIIResult{Estado: "Aceptado"},
					Reason: "Aceptado", EventType: sello.EventECFAccepted},
			}
			for round := range 2 { // the first prepares the statements
				doc := storetest.MustCreateDocument(t, db, sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, Prepare: prepare})
				for _, ch := range steps {
					count.take()
					if _, err := db.UpdateDocument(t.Context(), tn.ID, sello.EnvTest, doc.ID, ch); err != nil {
						t.Fatalf("UpdateDocument to %s: %v", ch.Status, err)
					}
					trips, statements := count.take()
					if round == 0 {
						continue
					}
					if trips != c.trips || statements < c.statements || statements > c.statements+c.max {
						t.Errorf("UpdateDocument to %s: %d round trips, %d statements; want %d and %d–%d",
							ch.Status, trips, statements, c.trips, c.statements, c.statements+c.max)
					}
				}
				history, err := db.FindDocumentHistory(t.Context(), tn.ID, sello.EnvTest, doc.ID)
				if err != nil || len(history) != 4 {
					t.Fatalf("history: got %d rows (%v), want 4", len(history), err)
				}
				events, err := db.FindDocumentEvents(t.Context(), tn.ID, sello.EnvTest, doc.ID)
				if err != nil || len(events) != 4 {
					t.Fatalf("events: got %d (%v), want 4", len(events), err)
				}
			}
			var deliveries, jobs int
			if err := db.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM webhook_deliveries),
				(SELECT count(*) FROM river_job WHERE kind = $1)`, sello.WebhookJob{}.Kind()).Scan(&deliveries, &jobs); err != nil {
				t.Fatal(err)
			}
			want := 0
			if c.endpoint {
				want = 8 // two documents' queued, signed, submitted and accepted events
			}
			if deliveries != want || jobs != want {
				t.Errorf("webhook deliveries and their jobs: got %d and %d, want %d", deliveries, jobs, want)
			}
		})
	}
}

// TestUpdateDocumentBatchFails: when a statement of the batch that
// commits fails (here the event's insert, made to fail by a trigger),
// nothing of the transition is written, the error is returned, and the
// connection serves the next transition.
func TestUpdateDocumentBatchFails(t *testing.T) {
	db, _ := mustCountedDB(t) // one connection: the next call reuses it
	ctx := t.Context()
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	storetest.MustCreateWebhookEndpoint(t, db, tn.ID, sello.EnvTest)
	doc := storetest.MustCreateDocument(t, db, sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
		Prepare: func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) {
			return &sello.PreparedDocument{Payload: json.RawMessage(`{"ECF":{}}`), Total: "10.00", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 1}}, nil
		}})
	if _, err := db.pool.Exec(ctx, `
		CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no events today'; END $$;
		CREATE TRIGGER refuse_event BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_event()`); err != nil {
		t.Fatal(err)
	}
	ch := sello.DocumentChange{From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusFailed, Reason: "test",
		EventType: sello.EventECFFailed, Severity: "error", Message: "test"}
	if _, err := db.UpdateDocument(ctx, tn.ID, sello.EnvTest, doc.ID, ch); err == nil {
		t.Fatal("UpdateDocument with the event refused: got nil error")
	}
	got, err := db.FindDocumentByID(ctx, tn.ID, sello.EnvTest, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	history, err := db.FindDocumentHistory(ctx, tn.ID, sello.EnvTest, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	var deliveries int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries`).Scan(&deliveries); err != nil {
		t.Fatal(err)
	}
	if got.Status != sello.StatusQueuedForSigning || len(history) != 1 || deliveries != 1 {
		t.Errorf("after the failed transition: status %s, %d history rows, %d webhook deliveries; want queued_for_signing, 1 and 1 (the create's)",
			got.Status, len(history), deliveries)
	}
	if _, err := db.pool.Exec(ctx, `DROP TRIGGER refuse_event ON events`); err != nil {
		t.Fatal(err)
	}
	if got, err := db.UpdateDocument(ctx, tn.ID, sello.EnvTest, doc.ID, ch); err != nil || got.Status != sello.StatusFailed {
		t.Fatalf("UpdateDocument after: got %v, %v; want failed", got, err)
	}
}
