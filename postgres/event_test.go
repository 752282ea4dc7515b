package postgres

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// TestListEventsAnswersSettledAtOnce: with a transaction held open between
// two events' commits, the first event is settled and the second is not.
// ListEvents answers the first at once, in one statement (it re-read the
// whole page until settleWait, every event settled or not); after it, with
// nothing settled, it lists nothing, however long it waits; once the
// transaction ends, the second follows from the first's position.
func TestListEventsAnswersSettledAtOnce(t *testing.T) {
	db, count := mustCountedDB(t)
	ctx := t.Context()
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	create := func() {
		t.Helper()
		storetest.MustCreateDocument(t, db, sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
			Prepare: func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) {
				return &sello.PreparedDocument{Payload: json.RawMessage(`{"ECF":{}}`), Total: "10.00", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 1}}, nil
			}})
	}
	create()
	// The first event is settled once the transactions older than it (of
	// other tests on the server too) have ended; it stays so.
	first := storetest.WaitEvents(t, db, tn.ID, sello.EnvTest, sello.EventFilter{}, storetest.AtLeast(1))
	if len(first) != 1 {
		t.Fatalf("got %d events, want the first", len(first))
	}

	cfg := db.pool.Config().ConnConfig.Copy()
	cfg.Tracer = nil
	holder, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	held, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(context.Background())
	if _, err := held.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil { // an id, older than the second event's
		t.Fatal(err)
	}
	create()

	count.take()
	got, err := db.ListEvents(ctx, tn.ID, sello.EnvTest, sello.EventFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, statements := count.take(); len(got) != 1 || got[0].ID != first[0].ID || statements != 1 {
		t.Errorf("ListEvents: %d events in %d statements, want the first in 1", len(got), statements)
	}
	after := sello.EventFilter{After: first[0].Pos}
	if got, err := db.ListEvents(ctx, tn.ID, sello.EnvTest, after); err != nil || len(got) != 0 {
		t.Errorf("ListEvents after the first, a transaction older than the second running: %d events, %v; want none", len(got), err)
	}

	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	second := storetest.WaitEvents(t, db, tn.ID, sello.EnvTest, after, storetest.AtLeast(1))
	if len(second) != 1 || second[0].Type != sello.EventECFQueued {
		t.Errorf("after the transaction: %d events, want the second ecf.queued", len(second))
	}
}
