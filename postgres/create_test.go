package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// createsEnv is a store in a fresh schema with a tenant that has the range
// 1–1000 of type 31 in TesteCF, and the key of its creates.
type createsEnv struct {
	db  *DB
	url string
	tn  *sello.Tenant
	key createKey
}

func newCreatesEnv(t *testing.T) createsEnv {
	t.Helper()
	url := pgtest.MustSchema(t)
	db, err := Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)
	return createsEnv{db: db, url: url, tn: tn, key: createKey{tenantID: tn.ID, env: sello.EnvTest, typ: sello.TypeCreditoFiscal}}
}

// draft is a create of type 31 whose Prepare calls prepare first, when
// not nil.
func (e createsEnv) draft(prepare func()) sello.DocumentDraft {
	return sello.DocumentDraft{TenantID: e.tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
		Prepare: func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			if prepare != nil {
				prepare()
			}
			return &sello.PreparedDocument{Payload: json.RawMessage(`{"ECF":{}}`), Total: "10.00", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 1}}, nil
		}}
}

// hold takes the advisory lock that every group of e.key takes first, on a
// connection of its own, so that the next group waits at its start and
// the creates after it pile up. The returned function releases it.
func (e createsEnv) hold(t *testing.T) (release func()) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), `SELECT pg_advisory_lock($1)`, e.key.lockID()); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, e.key.lockID()); err != nil {
				t.Error(err)
			}
			conn.Close(context.Background())
		})
	}
	t.Cleanup(release)
	return release
}

// waitQueued waits until e.key's committer runs and n creates wait for it.
func (e createsEnv) waitQueued(t *testing.T, n int) {
	t.Helper()
	got, running := 0, false
	if !testwait.Within(10*time.Second, time.Millisecond, func() bool {
		q := &e.db.creates
		q.mu.Lock()
		defer q.mu.Unlock()
		var waiting []*createReq
		waiting, running = q.pending[e.key]
		got = len(waiting)
		return running && got == n
	}) {
		t.Fatalf("%d creates queued (committer running: %v), want %d", got, running, n)
	}
}

// eventTxs returns the transaction that wrote each document's ecf.queued
// event, by document id.
func (e createsEnv) eventTxs(t *testing.T) map[string]string {
	t.Helper()
	rows, err := e.db.pool.Query(t.Context(), `SELECT document->>'id', tx::text FROM events WHERE tenant_id = $1 AND type = 'ecf.queued'`, e.tn.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var id, tx string
	_, err = pgx.ForEachRow(rows, []any{&id, &tx}, func() error {
		out[id] = tx
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// result is what one create got.
type result struct {
	doc      *sello.Document
	err      error
	panicked any
}

// Creates that pile up while a group runs share the next transaction, in
// the order they came: each takes the next number in turn, one that fails
// (its Prepare's error, a panic, a reused idempotency key) takes none and
// fails alone, and one whose caller has gone before its turn is skipped.
func TestCreateGroup(t *testing.T) {
	e := newCreatesEnv(t)
	ctx := t.Context()
	used := e.draft(nil)
	used.IdempotencyKey, used.RequestHash = "order-1", []byte("a")
	first, _, err := e.db.CreateDocument(ctx, used)
	if err != nil {
		t.Fatal(err)
	}
	release := e.hold(t)

	const n = 12
	boom := errors.New("boom")
	results := make([]result, n)
	prepared := make([]bool, n)
	canceled, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			defer func() { results[i].panicked = recover() }()
			c := ctx
			nd := e.draft(func() { prepared[i] = true })
			switch i {
			case 1, 5:
				nd.Prepare = func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) { return nil, boom }
			case 2:
				nd.Prepare = func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) { panic("boom") }
			case 6:
				nd.IdempotencyKey, nd.RequestHash = "order-1", []byte("b")
			case 9:
				c = canceled
			}
			results[i].doc, _, results[i].err = e.db.CreateDocument(c, nd)
		})
		e.waitQueued(t, i) // in order; the first is taken at once, and waits for the lock
	}
	cancel() // create 9's caller goes while it waits
	release()
	wg.Wait()

	number := int64(2)
	var together []*sello.Document
	for i, r := range results {
		switch i {
		case 1, 5:
			if !errors.Is(r.err, boom) {
				t.Errorf("create %d: got %v, want Prepare's error", i, r.err)
			}
		case 2:
			if r.panicked != "boom" {
				t.Errorf("create 2: panicked with %v in its caller, want boom", r.panicked)
			}
		case 6:
			if sello.ErrorCodeOf(r.err) != sello.CodeIdempotencyKeyReused {
				t.Errorf("create 6: got %v, want IDEMPOTENCY_KEY_REUSED", r.err)
			}
		case 9:
			if !errors.Is(r.err, context.Canceled) || prepared[9] {
				t.Errorf("create 9: got %v (prepared: %v), want context.Canceled before its turn", r.err, prepared[9])
			}
		default:
			if r.err != nil || r.panicked != nil {
				t.Fatalf("create %d: got %v, panic %v; want a document", i, r.err, r.panicked)
			}
			if want := (sello.ENCF{Type: sello.TypeCreditoFiscal, Number: number}).String(); r.doc.ENCF != want {
				t.Errorf("create %d: got %s, want %s (the order they came in)", i, r.doc.ENCF, want)
			}
			number++
			if i > 0 {
				together = append(together, r.doc)
			}
		}
	}
	// The first ran alone, while the others queued; they then shared one
	// transaction.
	txs := e.eventTxs(t)
	alone := txs[results[0].doc.ID]
	for _, d := range together {
		if tx := txs[d.ID]; tx == "" || tx == alone || tx == txs[first.ID] || tx != txs[together[0].ID] {
			t.Errorf("%s: written by transaction %q; want the one of all the creates queued with it (%s), not the first's (%s)", d.ENCF, tx, txs[together[0].ID], alone)
		}
	}
	var next int64
	if err := e.db.pool.QueryRow(ctx, `SELECT next FROM sequences WHERE tenant_id = $1`, e.tn.ID).Scan(&next); err != nil || next != number {
		t.Errorf("sequence next: got %d (%v), want %d", next, err, number)
	}
}

// A create whose caller goes while its group waits to start ends the
// group: the wait is cut at once, and no number is taken.
func TestCreateGroupCanceled(t *testing.T) {
	e := newCreatesEnv(t)
	release := e.hold(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, _, err := e.db.CreateDocument(ctx, e.draft(func() { t.Error("Prepare called") }))
		done <- err
	}()
	e.waitQueued(t, 0)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the create still waits for the lock 10 s after its caller went")
	}
	release()
	doc, _, err := e.db.CreateDocument(t.Context(), e.draft(nil))
	if err != nil || doc.ENCF != "E310000000001" {
		t.Fatalf("next create: got %v, %v; want E310000000001", doc, err)
	}
}

// A group is bounded: creates beyond maxCreates go in the next
// transaction, and none is left behind.
func TestCreateGroupBounded(t *testing.T) {
	e := newCreatesEnv(t)
	release := e.hold(t)
	n := 1 + maxCreates + 7
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, _, err := e.db.CreateDocument(t.Context(), e.draft(nil))
			errs <- err
		})
		if i == 0 {
			e.waitQueued(t, 0)
		}
	}
	e.waitQueued(t, n-1)
	release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	sizes := map[string]int{}
	for _, tx := range e.eventTxs(t) {
		sizes[tx]++
	}
	var got []int
	for _, size := range sizes {
		got = append(got, size)
	}
	slices.Sort(got)
	if want := []int{1, 7, maxCreates}; !slices.Equal(got, want) {
		t.Errorf("documents per transaction: got %v, want %v", got, want)
	}
}

// A group whose commit fails fails every create in it.
func TestCreateGroupCommitFails(t *testing.T) {
	e := newCreatesEnv(t)
	// A deferred foreign key fails at COMMIT, not at the statement.
	if _, err := e.db.pool.Exec(t.Context(), `CREATE TABLE parent (id int PRIMARY KEY);
		CREATE TABLE child (x int PRIMARY KEY, p int REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`); err != nil {
		t.Fatal(err)
	}
	release := e.hold(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			errs[i] = e.db.inCreateTx(t.Context(), e.key, func(tx pgx.Tx) error {
				p := 0
				if i == 2 {
					p = 99 // no such parent
				}
				_, err := tx.Exec(t.Context(), `INSERT INTO child (x, p) VALUES ($1, NULLIF($2, 0))`, i, p)
				return err
			})
		})
		e.waitQueued(t, i)
	}
	release()
	wg.Wait()
	if errs[0] != nil {
		t.Errorf("create 0, alone in its group: %v", errs[0])
	}
	for i, err := range errs[1:] {
		if err == nil {
			t.Errorf("create %d succeeded; its group's commit failed", i+1)
		}
	}
	var count int
	if err := e.db.pool.QueryRow(t.Context(), `SELECT count(*) FROM child WHERE x > 0`).Scan(&count); err != nil || count != 0 {
		t.Errorf("rows of the failed group: %d (%v), want 0", count, err)
	}
}

// Close commits the creates already queued, then refuses more.
func TestCreateGroupClose(t *testing.T) {
	e := newCreatesEnv(t)
	release := e.hold(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { _, _, errs[i] = e.db.CreateDocument(t.Context(), e.draft(nil)) })
		e.waitQueued(t, i)
	}
	closed := make(chan struct{})
	go func() {
		e.db.Close()
		close(closed)
	}()
	if !testwait.Within(10*time.Second, time.Millisecond, func() bool {
		e.db.creates.mu.Lock()
		defer e.db.creates.mu.Unlock()
		return e.db.creates.closed
	}) {
		t.Fatal("Close did not start")
	}
	if _, _, err := e.db.CreateDocument(t.Context(), e.draft(nil)); !errors.Is(err, errStoreClosed) {
		t.Errorf("create after Close: got %v, want %v", err, errStoreClosed)
	}
	select {
	case <-closed:
		t.Fatal("Close returned before the queued creates committed")
	default:
	}
	release()
	wg.Wait()
	<-closed
	for i, err := range errs {
		if err != nil {
			t.Errorf("create %d queued before Close: %v", i, err)
		}
	}
}

// TestCreateDocumentRoundTrips counts a lone create's round trips: its
// writes travel with its job's insert, and its number's checks in one
// batch, while the group holds its type's ranges. Its writes are all there
// after.
func TestCreateDocumentRoundTrips(t *testing.T) {
	db, count := mustCountedDB(t)
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	prepare := func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) {
		return &sello.PreparedDocument{Payload: json.RawMessage(`{"ECF":{}}`), Total: "10.00", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 1}}, nil
	}
	for i := range 2 { // the first prepares the statements
		count.take()
		doc := storetest.MustCreateDocument(t, db, sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
			IdempotencyKey: "key-" + strconv.Itoa(i), RequestHash: []byte("hash"), Prepare: prepare})
		trips, statements := count.take()
		// Six statements ride with others: the number's document and
		// endpoint checks with its void's, and the range's advance, the
		// document's insert, its event and the key's snapshot with the
		// job's insert.
		if i == 1 && trips != statements-6 {
			t.Errorf("CreateDocument: %d round trips for %d statements; want 6 fewer", trips, statements)
		}
		t.Logf("create %d: %d round trips, %d statements", i, trips, statements)
		got, err := db.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil || got.ID != doc.ID {
			t.Fatalf("FindDocument: %v, %v", got, err)
		}
		seqs, err := db.FindSequences(t.Context(), tn.ID, sello.EnvTest)
		if err != nil || len(seqs) != 1 || seqs[0].Next != int64(i+2) {
			t.Fatalf("sequences after create %d: %+v, %v; want next %d", i, seqs, err, i+2)
		}
	}
}

// TestCreateGroupRoundTrips counts what the creates of a group wait for
// after its first: two round trips each (the savepoint with the number's
// checks; its writes and its event with River's insert of its job, for a
// tenant without webhook endpoints). The ranges are read and locked once a
// group, and the numbers still follow one another.
func TestCreateGroupRoundTrips(t *testing.T) {
	e := newCreatesEnv(t)
	count := &statementCounter{}
	cfg := e.db.pool.Config()
	cfg.ConnConfig.Tracer = count
	cfg.MaxConns, cfg.MinConns = 1, 0
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.db.pool.Close()
	e.db.pool = pool
	storetest.MustCreateDocument(t, e.db, e.draft(nil)) // prepares the statements
	release := e.hold(t)
	count.take()

	const n = 8
	docs := make([]*sello.Document, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			doc, _, err := e.db.CreateDocument(t.Context(), e.draft(nil))
			if err != nil {
				t.Error(err)
			}
			docs[i] = doc
		})
		e.waitQueued(t, i)
	}
	release()
	wg.Wait()
	sqls := count.taken()
	trips, statements := count.take()
	// The first create is taken at once and runs alone (begin, ranges,
	// checks, job with the writes, commit); the others pile up behind it
	// and share the next group: its begin and commit, its first create's
	// three and two for each after it. River's notify may add one.
	want := 5 + 2 + 3 + 2*(n-2)
	if trips > want+1 {
		t.Errorf("%d creates, %d of them in one group: %d round trips (%d statements); want at most %d", n, n-1, trips, statements, want+1)
	}
	t.Logf("%d creates: %d round trips, %d statements", n, trips, statements)
	var locks int
	for _, sql := range sqls {
		if strings.Contains(sql, "FROM sequences") && strings.Contains(sql, "FOR UPDATE") {
			locks++
		}
	}
	if locks != 2 {
		t.Errorf("two groups read their ranges %d times, want once each", locks)
	}
	for i, d := range docs {
		if want := (sello.ENCF{Type: sello.TypeCreditoFiscal, Number: int64(i + 2)}).String(); d == nil || d.ENCF != want {
			t.Errorf("create %d: got %v, want %s", i, d, want)
		}
	}
}

// TestCreateGroupExhausted: a create of a group that finds the ranges used
// up from what the creates before it left (no statement sent) fails alone,
// and the creates before it keep their numbers.
func TestCreateGroupExhausted(t *testing.T) {
	e := newCreatesEnv(t)
	tn := storetest.MustCreateTenant(t, e.db)
	storetest.MustAddSequence(t, e.db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 4)
	e.tn, e.key = tn, createKey{tenantID: tn.ID, env: sello.EnvTest, typ: sello.TypeCreditoFiscal}
	release := e.hold(t)
	const n = 6
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i].doc, _, results[i].err = e.db.CreateDocument(t.Context(), e.draft(nil))
		})
		e.waitQueued(t, i)
	}
	release()
	wg.Wait()
	for i, r := range results {
		if i < 4 {
			if want := (sello.ENCF{Type: sello.TypeCreditoFiscal, Number: int64(i + 1)}).String(); r.err != nil || r.doc.ENCF != want {
				t.Errorf("create %d: %v, %v; want %s", i, r.doc, r.err, want)
				continue
			}
			if _, err := e.db.FindDocument(t.Context(), tn.ID, sello.EnvTest, r.doc.ENCF); err != nil {
				t.Errorf("create %d: %s not stored: %v", i, r.doc.ENCF, err)
			}
		} else if sello.ErrorCodeOf(r.err) != sello.CodeSequenceExhausted {
			t.Errorf("create %d: %v, %v; want SEQUENCE_EXHAUSTED", i, r.doc, r.err)
		}
	}
	var next int64
	if err := e.db.pool.QueryRow(t.Context(), `SELECT next FROM sequences WHERE tenant_id = $1`, tn.ID).Scan(&next); err != nil || next != 5 {
		t.Errorf("sequence next: got %d (%v), want 5", next, err)
	}
}

// TestCreateWritesFail: a create's writes wait to travel with its job's
// insert; when one fails there (the e-NCF taken by a transaction the
// create's check could not see yet), the create fails with that write's
// error, takes no number, and the next create numbers past it.
func TestCreateWritesFail(t *testing.T) {
	e := newCreatesEnv(t)
	ctx := t.Context()
	first := storetest.MustCreateDocument(t, e.db, e.draft(nil))
	conn, err := pgx.Connect(ctx, e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	other, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	taken := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: 2}.String()
	if _, err := other.Exec(ctx, `CREATE TEMP TABLE d ON COMMIT DROP AS SELECT * FROM documents WHERE id = $1`, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, `UPDATE d SET id = 'doc_taken', encf = $1`, taken); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, `INSERT INTO documents SELECT * FROM d`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := e.db.CreateDocument(ctx, e.draft(nil))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("create did not wait for the other transaction's e-NCF: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; sello.ErrorCodeOf(err) != sello.CodeConflict {
		t.Fatalf("create: %v; want CONFLICT for e-NCF %s", err, taken)
	}
	doc := storetest.MustCreateDocument(t, e.db, e.draft(nil))
	if want := (sello.ENCF{Type: sello.TypeCreditoFiscal, Number: 3}).String(); doc.ENCF != want {
		t.Fatalf("next create: %s, want %s", doc.ENCF, want)
	}
}
