package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sello-do/sello"
)

// Creates share commits.
//
// Numbering is gapless: a create locks its type's ranges (documentTx's
// Sequences, FOR UPDATE) and holds the lock until its transaction has
// committed, WAL flush included. One transaction per create made the
// flush the ceiling of a tenant's creates of a type, whatever the number
// of nodes or connections. So the creates of one tenant, environment and
// type that arrive together share a transaction, as SQLite's group commit
// shares them (sqlite/commit.go): inCreateTx leaves its work in a queue of
// its key, and one goroutine per key with work pending (its committer)
// takes up to maxCreates pieces, runs them in one transaction, each in a
// savepoint of its own, and commits once; then again, as long as work is
// pending, and it ends when none is. The ranges are locked and the flush
// paid once per group instead of once per create.
//
// A piece that fails rolls back to its savepoint and fails alone; the
// others commit. Nobody is told of a success before the commit that makes
// it durable, and if that commit fails every piece of the group fails with
// it. The transaction's statements run under a context of the group's
// own, which ends only when every piece's caller has gone: pgx breaks the
// connection of a statement whose context ends, and one client hanging up
// must not undo the others' documents. A piece whose caller has gone
// before its turn is skipped, having taken nothing; one whose turn has
// come runs to its end.
//
// Across nodes. Each group takes, before anything else, a transaction
// advisory lock of its key (createKey.lockID): the groups of a key, from
// any node, run one after the other, and numbers stay unique and gapless
// as they were. The lock comes first because a group keeps every piece's locks
// until it commits: had its pieces taken the ranges' lock as they came,
// a group holding an idempotency key's row (an existing key is locked by
// its claim) could wait for the ranges held by another node's group that
// waits for that row, a deadlock that single creates never met. Now a
// group waiting for its turn holds nothing.
//
// Under no load a group is one create, in a transaction of its own as
// before, which also takes the lock (in the round trip that begins it).

// maxCreates bounds a group: its first create waits for a bounded number
// of others, and each piece's savepoint takes a subtransaction id, of
// which PostgreSQL keeps 64 per transaction in shared memory; past that
// every snapshot in the cluster must look subtransactions up in
// pg_subtrans. (River's job insert opens no savepoint of its own.)
const maxCreates = 32

// createKey is what a create locks: its tenant's ranges of a type in an
// environment.
type createKey struct {
	tenantID string
	env      sello.Environment
	typ      sello.DocumentType
}

// createReq is one create's work.
type createReq struct {
	ctx context.Context
	fn  func(tx pgx.Tx) error

	err      error
	panicked any // what fn panicked with, raised again in inCreateTx's goroutine
	done     chan struct{}
}

// createQueues holds the creates waiting for their committer.
type createQueues struct {
	mu sync.Mutex
	// pending has an entry for every key whose committer runs, with the
	// work it has not taken yet.
	pending map[createKey][]*createReq
	closed  bool
	running sync.WaitGroup
}

// errStoreClosed is what a create after Close gets.
var errStoreClosed = errors.New("postgres: store closed")

// inCreateTx runs fn in a transaction that may be shared with other
// creates of key (see above) and returns when it has committed (nil) or
// failed. fn sees the others' changes and they see its own. Its statements
// run under the group's context, whatever context it passes them.
func (db *DB) inCreateTx(ctx context.Context, key createKey, fn func(tx pgx.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wait to create: %w", err)
	}
	r := &createReq{ctx: ctx, fn: fn, done: make(chan struct{})}
	q := &db.creates
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errStoreClosed
	}
	if q.pending == nil {
		q.pending = map[createKey][]*createReq{}
	}
	waiting, running := q.pending[key]
	q.pending[key] = append(waiting, r)
	if !running {
		q.running.Add(1)
		go db.commitCreates(key)
	}
	q.mu.Unlock()
	<-r.done
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

// commitCreates is key's committer: it commits key's pending creates,
// group after group, and returns when none is left.
func (db *DB) commitCreates(key createKey) {
	q := &db.creates
	defer q.running.Done()
	for {
		q.mu.Lock()
		waiting := q.pending[key]
		n := min(len(waiting), maxCreates)
		if n == 0 {
			delete(q.pending, key)
			q.mu.Unlock()
			return
		}
		group := waiting[:n:n]
		q.pending[key] = waiting[n:]
		q.mu.Unlock()

		err := db.runCreates(key, group)
		for _, r := range group {
			if r.err == nil && r.panicked == nil {
				r.err = err
			}
			close(r.done)
		}
	}
}

// closeCreates refuses new creates and waits for the committers to finish
// the ones they have.
func (db *DB) closeCreates() {
	q := &db.creates
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.running.Wait()
}

// runCreates runs group, creates of key, in one transaction, setting each
// piece's err, and returns the error of the transaction itself.
//
// Round trips are what a group's pieces wait for, one after the other, so
// it spends few: the transaction begins, takes the key's lock and sets the
// first savepoint in one; a piece that succeeded is released and the next
// one's savepoint set with that piece's first statement, and a piece's
// writes travel with its next statement (createGroup.prefix); the commit
// releases the last. A group of one create sets no savepoint: its
// failure rolls the transaction back. The pieces after the first number
// from the ranges as the pieces before them left them, without reading
// them again (createGroup.seqs).
func (db *DB) runCreates(key createKey, group []*createReq) error {
	ctx, cancel := groupContext(group)
	defer cancel()
	shared := len(group) > 1
	begin := "BEGIN; SELECT pg_advisory_xact_lock(" + strconv.FormatInt(key.lockID(), 10) + ")"
	if shared {
		begin += "; SAVEPOINT c"
	}
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: begin})
	if err != nil {
		return dbError(err, "begin and lock creates")
	}
	defer tx.Rollback(context.Background())
	g := &createGroup{key: key}
	clean := true // whether savepoint c holds no piece's changes yet
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.err = fmt.Errorf("wait to create: %w", err)
			continue
		}
		g.start(!clean)
		if r.run(ctx, groupTx{Tx: tx, g: g}) {
			g.kept()
			clean = false
			continue
		}
		g.dropped()
		if !shared {
			return nil // r carries why
		}
		if g.savepoint {
			// The piece sent nothing (its writes wait in g.prefix,
			// dropped): the savepoint still holds the pieces before
			// it, and there is nothing to undo.
			continue
		}
		if _, err := tx.Exec(ctx, "ROLLBACK TO c"); err != nil {
			return dbError(err, "rollback to savepoint")
		}
		clean = true
	}
	start := time.Now()
	if err := tx.Commit(ctx); err != nil {
		return dbError(err, "commit")
	}
	db.observeCommit(len(group), start)
	return nil
}

// createGroup is what a group's pieces share besides the transaction.
type createGroup struct {
	key createKey
	// prefix holds the running piece's statements whose results it does
	// not wait for: the savepoint it needs, its range's advance, its
	// document's insert and, for a tenant without webhook endpoints, its
	// event. groupTx sends them with the piece's next statement, in its
	// round trip, and reports their errors as that statement's.
	prefix pendingWrites
	// savepoint is set while prefix holds the savepoint (RELEASE c,
	// SAVEPOINT c): the running piece has sent nothing yet.
	savepoint bool
	// seqs are key's ranges as the pieces kept so far left them: read,
	// locked, by the first piece that asked, then advanced by each kept
	// piece's SetSequenceNext. Nil until read. The ranges stay locked
	// (FOR UPDATE) until the group commits, so nothing else changes them
	// meanwhile; a range added meanwhile is seen by the next group.
	seqs []*sello.Sequence
	// read and next are the running piece's: the ranges it read (when
	// seqs was nil) and the nexts it wrote, by range id.
	read []*sello.Sequence
	next map[string]int64
}

// start readies the group for its next piece, whose statements must first
// release savepoint c and set it again when savepoint is true (a piece
// after one that succeeded).
func (g *createGroup) start(savepoint bool) {
	g.prefix, g.savepoint = pendingWrites{}, savepoint
	if savepoint {
		report := func(err error) error { return dbError(err, "savepoint") }
		g.prefix.queue(report, "RELEASE c")
		g.prefix.queue(report, "SAVEPOINT c")
	}
}

// sequences returns copies of the ranges the group knows, or nil.
func (g *createGroup) sequences(tenantID string, env sello.Environment, typ sello.DocumentType) []*sello.Sequence {
	if g.seqs == nil || (createKey{tenantID: tenantID, env: env, typ: typ}) != g.key {
		return nil
	}
	return cloneSequences(g.seqs)
}

// readSequences records the ranges the running piece read.
func (g *createGroup) readSequences(tenantID string, env sello.Environment, typ sello.DocumentType, seqs []*sello.Sequence) {
	if (createKey{tenantID: tenantID, env: env, typ: typ}) == g.key && seqs != nil {
		g.read = cloneSequences(seqs)
	}
}

// wroteNext records a range's next as the running piece wrote it.
func (g *createGroup) wroteNext(seq *sello.Sequence) {
	if g.next == nil {
		g.next = map[string]int64{}
	}
	g.next[seq.ID] = seq.Next
}

// kept takes in what the running piece, committed with the group, read
// and wrote.
func (g *createGroup) kept() {
	if g.seqs == nil {
		g.seqs = g.read
	}
	for _, s := range g.seqs {
		if n, ok := g.next[s.ID]; ok {
			s.Next = n
		}
	}
	g.read, g.next = nil, nil
}

// dropped forgets what the running piece, rolled back, read and wrote.
func (g *createGroup) dropped() { g.read, g.next = nil, nil }

// cloneSequences copies seqs, each range too.
func cloneSequences(seqs []*sello.Sequence) []*sello.Sequence {
	out := make([]*sello.Sequence, len(seqs))
	for i, s := range seqs {
		c := *s
		out[i] = &c
	}
	return out
}

// lockID is the advisory lock a group of creates of k takes first: a
// 64-bit FNV-1a hash of the key. Two keys that share one only wait for
// each other.
func (k createKey) lockID() int64 {
	h := fnv.New64a()
	h.Write([]byte("sello creates\x00" + k.tenantID + "\x00" + string(k.env) + "\x00" + string(k.typ)))
	return int64(h.Sum64())
}

// groupContext returns the context of group's transaction: it ends when
// every piece's context has ended, or when cancel is called.
func groupContext(group []*createReq) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	var left atomic.Int64
	left.Store(int64(len(group)))
	stops := make([]func() bool, len(group))
	for i, r := range group {
		stops[i] = context.AfterFunc(r.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// run runs r's work with tx, catching a panic, and reports whether it
// succeeded. r's statements run under a context with the values of r's
// own and the end of the group's, ctx.
func (r *createReq) run(ctx context.Context, tx groupTx) (ok bool) {
	r.err = nil
	pctx, cancel := context.WithCancel(context.WithoutCancel(r.ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, cancel) // the group's end ends it
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
			ok = false
		}
	}()
	tx.ctx = pctx
	r.err = r.fn(tx)
	return r.err == nil
}

// groupTx is a group's transaction as a piece uses it: every statement
// runs under ctx (see createReq.run), whatever context the piece passes,
// and carries the piece's statements waiting in g.prefix, in one batch.
type groupTx struct {
	pgx.Tx
	ctx context.Context
	g   *createGroup
}

// send sends then (nil: nothing more) after the statements waiting in
// t.g.prefix, in one batch, reads theirs, and returns the batch, whose
// next result is then's first. A waiting statement's failure is returned
// as its report says.
func (t groupTx) send(then *pgx.Batch) (pgx.BatchResults, error) {
	if !t.waiting() {
		return t.Tx.SendBatch(t.ctx, then), nil
	}
	t.g.savepoint = false
	return t.g.prefix.send(t.ctx, t.Tx, then)
}

// sendWith sends the one statement sql after the statements waiting in
// t.g.prefix (there are some), in one batch: the batch's next result is
// sql's.
func (t groupTx) sendWith(sql string, args ...any) (pgx.BatchResults, error) {
	var b pgx.Batch
	b.Queue(sql, args...)
	return t.send(&b)
}

// waiting reports whether statements wait in t.g.prefix.
func (t groupTx) waiting() bool { return t.g.prefix.b.Len() > 0 }

// flush sends the statements waiting in t.g.prefix, if any, alone.
func (t groupTx) flush() error {
	if !t.waiting() {
		return nil
	}
	br, err := t.send(nil)
	if err != nil {
		return err
	}
	return dbError(br.Close(), "write document")
}

// Exec implements pgx.Tx under the group's context.
func (t groupTx) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if !t.waiting() {
		return t.Tx.Exec(t.ctx, sql, args...)
	}
	br, err := t.sendWith(sql, args...)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

// Query implements pgx.Tx under the group's context.
func (t groupTx) Query(_ context.Context, sql string, args ...any) (pgx.Rows, error) {
	if !t.waiting() {
		return t.Tx.Query(t.ctx, sql, args...)
	}
	br, err := t.sendWith(sql, args...)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// QueryRow implements pgx.Tx under the group's context.
func (t groupTx) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	if !t.waiting() {
		return t.Tx.QueryRow(t.ctx, sql, args...)
	}
	br, err := t.sendWith(sql, args...)
	if err != nil {
		return errRow{err}
	}
	return batchRow{br}
}

// SendBatch implements pgx.Tx under the group's context.
func (t groupTx) SendBatch(_ context.Context, b *pgx.Batch) pgx.BatchResults {
	br, err := t.send(b)
	if err != nil {
		return errResults{err}
	}
	return br
}

// CopyFrom implements pgx.Tx under the group's context.
func (t groupTx) CopyFrom(_ context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.flush(); err != nil {
		return 0, err
	}
	return t.Tx.CopyFrom(t.ctx, table, columns, src)
}

// Prepare implements pgx.Tx under the group's context.
func (t groupTx) Prepare(_ context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.Tx.Prepare(t.ctx, name, sql)
}

// Begin implements pgx.Tx under the group's context: a savepoint.
func (t groupTx) Begin(_ context.Context) (pgx.Tx, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	return t.Tx.Begin(t.ctx)
}

// batchRows are the rows of a batch's last statement: closing them closes
// the batch.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// batchRow is the row of a batch's last statement: scanning it closes the
// batch.
type batchRow struct{ br pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	err := r.br.QueryRow().Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// errRow is a row whose Scan fails with err.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// errResults are a batch's results that all fail with err.
type errResults struct{ err error }

func (r errResults) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, r.err }
func (r errResults) Query() (pgx.Rows, error)         { return nil, r.err }
func (r errResults) QueryRow() pgx.Row                { return errRow(r) }
func (r errResults) Close() error                     { return r.err }
func (r errResults) Tx() pgx.Tx                       { return nil }
