package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// TestInboundConfirmSweepsAtOnce: while one sweep of the confirmation
// queue holds its batch (its transaction open), a second sweep takes the
// rest at once, without waiting for it; once the first commits, each
// document has one job.
func TestInboundConfirmSweepsAtOnce(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tn := storetest.MustCreateTenant(t, db)
	const docs, held = 10, 3
	for i := range docs {
		e := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: int64(i + 1)}.String()
		storetest.MustCreateInbound(t, db, &sello.InboundDocument{
			TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: e,
			IssuerRNC: "131000001", IssuerName: "Proveedor", BuyerRNC: tn.RNC, IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9},
			Total: "1180.00", XML: []byte("<ECF>" + e + "</ECF>"), Acuse: []byte("<ARECF/>"), SecurityCode: "q7Xk2P",
		})
	}
	tx, err := db.pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	first, err := inboundTx{db: db, tx: tx}.TakeInboundConfirms(t.Context(), held)
	if err != nil || len(first) != held {
		t.Fatalf("the first sweep's batch: %+v, %v; want %d", first, err, held)
	}
	// The second sweep, the first's transaction still open.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if n, err := db.QueueInboundConfirmJobs(ctx, docs); err != nil || n != docs-held {
		t.Fatalf("the second sweep, the first holding %d: moved %d, %v; want %d at once", held, n, err, docs-held)
	}
	js := make([]sello.Job, len(first))
	for i, j := range first {
		js[i] = j
	}
	if err := (inboundTx{db: db, tx: tx}).InsertJobs(t.Context(), js); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, err := db.QueueInboundConfirmJobs(t.Context(), docs); err != nil || n != 0 {
		t.Fatalf("a sweep after both: moved %d, %v; want 0", n, err)
	}
	res, err := db.river.JobList(t.Context(), river.NewJobListParams().Kinds(sello.InboundConfirmJob{}.Kind()).First(100))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, j := range res.Jobs {
		var a sello.InboundConfirmJob
		if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
			t.Fatal(err)
		}
		seen[a.InboundDocumentID]++
	}
	if len(res.Jobs) != docs || len(seen) != docs {
		t.Fatalf("%d jobs for %d documents, want one each of %d: %v", len(res.Jobs), len(seen), docs, fmt.Sprint(seen))
	}
}
