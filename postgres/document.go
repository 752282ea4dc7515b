package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// CreateDocument implements sello.DocumentStore with sello.CreateDocument,
// in one transaction, which creates of the same tenant, environment and
// type may share (create.go).
func (db *DB) CreateDocument(ctx context.Context, d sello.DocumentDraft) (*sello.Document, bool, error) {
	key := createKey{tenantID: d.TenantID, env: d.Environment, typ: d.Type}
	return sello.CreateDocument(ctx, d, func(fn func(sello.DocumentTx, time.Time) error) error {
		return db.inCreateTx(ctx, key, func(tx pgx.Tx) error {
			gtx := tx.(groupTx)
			t := documentTx{db: db, tx: tx, pending: &gtx.g.prefix, group: gtx.g, found: &foundENCF{}}
			if err := fn(t, db.now()); err != nil {
				return err
			}
			return gtx.flush()
		})
	})
}

// documentTx is sello.DocumentTx over one of the store's transactions.
type documentTx struct {
	db *DB
	tx pgx.Tx
	// pending, when not nil, holds the writes whose results a create does
	// not wait for (SetSequenceNext, InsertDocument, and InsertEvent when
	// the tenant has no webhook endpoint): they are the group's prefix
	// (createGroup.prefix) and travel in one round trip with the create's
	// next statement, its event's insert or its job's. With nil (voids),
	// every write is sent at once.
	pending *pendingWrites
	// group, when not nil, is the group of creates t's transaction runs:
	// its ranges are read once for the group (createGroup.seqs).
	group *createGroup
	// found, when not nil, keeps what VoidOf learnt of the number it was
	// asked about: a create asks DocumentIDByENCF next, and both questions
	// go in one round trip.
	found *foundENCF
}

// foundENCF is the answer of DocumentIDByENCF for encf, read ahead, and
// whether the tenant had webhook endpoints in env then.
type foundENCF struct {
	tenantID, encf string
	env            sello.Environment
	id             string
	ok             bool
	endpoints      bool
	read           bool // endpoints was read
}

// noEndpoints reports whether the tenant had no webhook endpoint (active or
// paused) in env when the number was checked.
func (f *foundENCF) noEndpoints(tenantID string, env sello.Environment) bool {
	return f != nil && f.read && !f.endpoints && f.tenantID == tenantID && f.env == env
}

// take returns the answer read ahead for encf, once.
func (f *foundENCF) take(tenantID string, env sello.Environment, encf string) (string, bool) {
	if f == nil || !f.ok || f.tenantID != tenantID || f.env != env || f.encf != encf {
		return "", false
	}
	f.ok = false
	return f.id, true
}

// pendingWrites are statements queued to be sent with the next one.
type pendingWrites struct {
	b pgx.Batch
	// report turns each statement's error into the one its method returns.
	report []func(error) error
}

// queue adds a statement; report says what its error becomes.
func (p *pendingWrites) queue(report func(error) error, sql string, args ...any) {
	p.b.Queue(sql, args...)
	p.report = append(p.report, report)
}

// send sends the queued statements with then's (if not nil) in one batch
// on tx, reads theirs and returns the batch, whose next result is then's
// (Close it). A statement that fails makes PostgreSQL skip the rest: its
// error, as reported, is returned.
func (p *pendingWrites) send(ctx context.Context, tx pgx.Tx, then *pgx.Batch) (pgx.BatchResults, error) {
	b, report := p.b, p.report
	p.b, p.report = pgx.Batch{}, nil
	if then != nil {
		b.QueuedQueries = append(b.QueuedQueries, then.QueuedQueries...)
	}
	br := tx.SendBatch(ctx, &b)
	for _, r := range report {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, r(err)
		}
	}
	return br, nil
}

// exec runs sql now, or queues it when t has pending writes.
func (t documentTx) exec(ctx context.Context, report func(error) error, sql string, args ...any) error {
	if t.pending != nil {
		t.pending.queue(report, sql, args...)
		return nil
	}
	_, err := t.tx.Exec(ctx, sql, args...)
	return report(err)
}

// ClaimIdempotencyKey implements sello.DocumentTx. A concurrent create with
// the same key waits in the INSERT until the first commits or rolls back.
func (t documentTx) ClaimIdempotencyKey(ctx context.Context, d sello.DocumentDraft, now, expired time.Time) (bool, sello.IdempotencyRecord, error) {
	var claimed int
	err := t.tx.QueryRow(ctx, `
		INSERT INTO idempotency_keys AS k (tenant_id, environment, key, request_hash, created_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant_id, environment, key) DO UPDATE
			SET request_hash = excluded.request_hash, document_id = NULL, snapshot = NULL, created_at = excluded.created_at
			WHERE k.created_at <= $6
		RETURNING 1`,
		d.TenantID, d.Environment, d.IdempotencyKey, d.RequestHash, now, expired).Scan(&claimed)
	if err == nil {
		return true, sello.IdempotencyRecord{}, nil
	} else if !isNoRows(err) {
		return false, sello.IdempotencyRecord{}, dbError(err, "claim idempotency key")
	}
	var held sello.IdempotencyRecord
	var payload *string
	err = t.tx.QueryRow(ctx, `
		SELECT k.request_hash, k.snapshot, d.payload::text
		FROM idempotency_keys k LEFT JOIN documents d ON d.tenant_id = k.tenant_id AND d.id = k.document_id
		WHERE k.tenant_id = $1 AND k.environment = $2 AND k.key = $3`,
		d.TenantID, d.Environment, d.IdempotencyKey).Scan(&held.RequestHash, &held.Snapshot, &payload)
	if err != nil {
		return false, held, dbError(err, "find idempotency key")
	}
	if payload != nil {
		held.Payload = []byte(*payload)
	}
	return false, held, nil
}

// Sequences implements sello.DocumentTx: the ranges are locked FOR UPDATE,
// so every create of the type waits here for the one before it and numbers
// are never shared or skipped.
func (t documentTx) Sequences(ctx context.Context, tenantID string, env sello.Environment, typ sello.DocumentType) ([]*sello.Sequence, error) {
	if t.group != nil {
		if seqs := t.group.sequences(tenantID, env, typ); seqs != nil {
			return seqs, nil
		}
	}
	rows, err := t.tx.Query(ctx, `
		SELECT `+sequenceColumns+` FROM sequences
		WHERE tenant_id = $1 AND environment = $2 AND type = $3
		ORDER BY range_from
		FOR UPDATE`, tenantID, env, typ)
	if err != nil {
		return nil, dbError(err, "lock sequences")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Sequence, error) { return scanSequence(r) })
	if err != nil {
		return nil, dbError(err, "lock sequences")
	}
	if t.group != nil {
		t.group.readSequences(tenantID, env, typ, out)
	}
	return out, nil
}

// DocumentIDByENCF implements sello.DocumentTx.
func (t documentTx) DocumentIDByENCF(ctx context.Context, tenantID string, env sello.Environment, encf string) (string, error) {
	if id, ok := t.found.take(tenantID, env, encf); ok {
		return id, nil
	}
	var id string
	err := t.tx.QueryRow(ctx, documentIDByENCFSQL, tenantID, env, encf).Scan(&id)
	if isNoRows(err) {
		return "", nil
	}
	return id, dbError(err, "find document by e-ncf")
}

// documentIDByENCFSQL finds a document's id by e-NCF.
const documentIDByENCFSQL = `SELECT id FROM documents WHERE tenant_id = $1 AND environment = $2 AND encf = $3`

// SetSequenceNext implements sello.DocumentTx.
func (t documentTx) SetSequenceNext(ctx context.Context, seq *sello.Sequence) error {
	if t.group != nil {
		t.group.wroteNext(seq)
	}
	return t.exec(ctx, func(err error) error { return dbError(err, "advance sequence") },
		`UPDATE sequences SET next = $1 WHERE tenant_id = $2 AND id = $3`, seq.Next, seq.TenantID, seq.ID)
}

// InsertDocument implements sello.DocumentTx.
func (t documentTx) InsertDocument(ctx context.Context, doc *sello.Document) error {
	dgii, err := sqlval.JSONOrNull(doc.DGII)
	if err != nil {
		return err
	}
	approval, err := sqlval.JSONOrNull(doc.CommercialApproval)
	if err != nil {
		return err
	}
	// The document and its first status in one statement: one round trip
	// less while the ranges are locked.
	return t.exec(ctx, insertDocumentError(doc), `
		WITH d AS (
			INSERT INTO documents (id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
				qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
				failure_reason, payload, created_at, updated_at, itbis)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
			RETURNING id, tenant_id, status, created_at)
		INSERT INTO document_status_history (document_id, tenant_id, status, at, reason)
		SELECT id, tenant_id, status, created_at, '' FROM d`,
		doc.ID, doc.TenantID, doc.Environment, doc.Type, doc.ENCF, doc.Status, doc.TrackID, doc.SecurityCode,
		doc.SignedAt, doc.QRURL, doc.Total, doc.BuyerRNC, dateValue(doc.IssueDate), dgii,
		doc.Delivery.Status, doc.Delivery.Code, approval, doc.FailureReason, string(doc.Payload),
		doc.CreatedAt, doc.UpdatedAt, cmp.Or(doc.ITBIS, "0.00"))
}

// insertDocumentError is the error InsertDocument returns for err.
func insertDocumentError(doc *sello.Document) func(error) error {
	return func(err error) error {
		switch errorKind(err) {
		case kindForeignKey:
			return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", doc.TenantID).WithErr(err)
		case kindUnique:
			return sello.Errorf(sello.CodeConflict, "e-NCF %s is already used.", doc.ENCF).WithErr(err)
		}
		return dbError(err, "insert document")
	}
}

// InsertEvent implements sello.DocumentTx: the pending writes travel with
// it.
//
// In a create for a tenant that had no webhook endpoint when its number was
// checked (VoidOf), the event's insert waits with the other writes, to
// travel with the job's: no delivery to fan out, and no position to read
// (a create does not use it). An endpoint created meanwhile is as one
// created just after the event: PostgreSQL's statements see what had
// committed when they began, so the window was there before, a few
// milliseconds shorter.
func (t documentTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	if t.group == nil {
		return t.db.insertEventAfter(ctx, t.tx, ev, t.pending)
	}
	if t.found.noEndpoints(ev.TenantID, ev.Environment) {
		document, data, err := eventValues(ev)
		if err != nil {
			return err
		}
		t.pending.queue(func(err error) error { return dbError(err, "insert event") }, insertEventSQL,
			ev.ID, ev.TenantID, ev.Environment, ev.Type, ev.CreatedAt, document, data)
		return nil
	}
	return t.db.insertEventAfter(ctx, t.tx, ev, nil) // the group's tx sends the writes waiting with it
}

// SaveIdempotencySnapshot implements sello.DocumentTx.
func (t documentTx) SaveIdempotencySnapshot(ctx context.Context, d sello.DocumentDraft, doc *sello.Document, snapshot []byte) error {
	return t.exec(ctx, func(err error) error { return dbError(err, "store idempotency snapshot") }, `
		UPDATE idempotency_keys SET document_id = $1, snapshot = $2
		WHERE tenant_id = $3 AND environment = $4 AND key = $5`,
		doc.ID, string(snapshot), d.TenantID, d.Environment, d.IdempotencyKey)
}

// InsertJobs implements sello.DocumentTx.
func (t documentTx) InsertJobs(ctx context.Context, jobs []sello.Job) error {
	return t.db.insertJobs(ctx, t.tx, jobs)
}

// documentColumns reads total and payload as text: numeric keeps its two
// decimals, json its bytes.
const documentColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total::text, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
	failure_reason, payload::text, created_at, updated_at, contingency, itbis::text`

// summaryColumns are documentColumns without the payload, which only
// signing and the printed representation read: a status read of a thousand
// documents does not copy their items.
const summaryColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total::text, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
	failure_reason, '', created_at, updated_at, contingency, itbis::text`

// FindDocument implements sello.DocumentStore. Returns NOT_FOUND.
func (db *DB) FindDocument(ctx context.Context, tenantID string, env sello.Environment, encf string) (*sello.Document, error) {
	doc, err := scanDocument(db.pool.QueryRow(ctx, `
		SELECT `+documentColumns+` FROM documents
		WHERE tenant_id = $1 AND environment = $2 AND encf = $3`, tenantID, env, encf))
	if isNoRows(err) {
		return nil, sello.DocumentNotFound(encf, env)
	}
	return doc, dbError(err, "find document")
}

// FindDocumentsByENCF implements sello.DocumentStore.
func (db *DB) FindDocumentsByENCF(ctx context.Context, tenantID string, env sello.Environment, encfs []string) ([]*sello.Document, error) {
	if len(encfs) == 0 {
		return nil, nil
	}
	return db.queryDocuments(ctx, "find documents by e-ncf", `
		SELECT `+summaryColumns+` FROM documents
		WHERE tenant_id = $1 AND environment = $2 AND encf = ANY($3)`, tenantID, env, encfs)
}

// ListDocuments implements sello.DocumentStore: newest first, keyset
// pagination on (created_at, id). Returns INVALID_REQUEST for a malformed
// cursor.
func (db *DB) ListDocuments(ctx context.Context, tenantID string, env sello.Environment, f sello.DocumentFilter) ([]*sello.Document, string, error) {
	limit := f.PageSize()
	q, args, err := listDocumentsSQL(tenantID, env, f, limit+1)
	if err != nil {
		return nil, "", err
	}
	docs, err := db.queryDocuments(ctx, "list documents", q, args...)
	if err != nil {
		return nil, "", err
	}
	docs, next := sello.NextDocumentPage(docs, limit)
	return docs, next, nil
}

// listDocumentsSQL is ListDocuments' query of rows documents under f, and
// its arguments. Each filter is an equality or a range of created_at that
// an index of migrations 1 and 24 leads with, after the tenant and the
// environment (the buyer's: documents_tenant_env_buyer_created;
// TestListQueriesUseIndexes). Returns INVALID_REQUEST for a malformed
// cursor.
func listDocumentsSQL(tenantID string, env sello.Environment, f sello.DocumentFilter, rows int) (string, []any, error) {
	q := `SELECT ` + summaryColumns + ` FROM documents WHERE tenant_id = $1 AND environment = $2`
	args := []any{tenantID, env}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		q += ` AND status = ` + arg(f.Status)
	}
	if f.Type != "" {
		q += ` AND type = ` + arg(f.Type)
	}
	if f.BuyerRNC != "" {
		q += ` AND buyer_rnc = ` + arg(f.BuyerRNC)
	}
	if f.ENCF != "" {
		q += ` AND encf = ` + arg(f.ENCF)
	}
	if f.CreatedFrom != nil {
		q += ` AND created_at >= ` + arg(f.CreatedFrom.UTC().Truncate(time.Microsecond))
	}
	if f.CreatedTo != nil {
		q += ` AND created_at < ` + arg(f.CreatedTo.UTC().Truncate(time.Microsecond))
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		q += ` AND (created_at, id) < (` + arg(at) + `, ` + arg(id) + `)`
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ` + arg(rows)
	return q, args, nil
}

func (db *DB) queryDocuments(ctx context.Context, op, query string, args ...any) ([]*sello.Document, error) {
	return queryDocumentsIn(ctx, db.pool, op, query, args...)
}

// queryDocumentsIn reads documents with q, the pool or a transaction.
func queryDocumentsIn(ctx context.Context, q querier, op, query string, args ...any) ([]*sello.Document, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, dbError(err, op)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Document, error) { return scanDocument(r) })
	return out, dbError(err, op)
}

// scanDocument reads the documentColumns or summaryColumns of a row; with
// extra, the destinations of the columns that follow them.
func scanDocument(r pgx.Row, extra ...any) (*sello.Document, error) {
	var d sello.Document
	var issueDate time.Time
	var dgii, approval []byte
	var payload string
	dest := append([]any{&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.Status, &d.TrackID, &d.SecurityCode,
		&d.SignedAt, &d.QRURL, &d.Total, &d.BuyerRNC, &issueDate, &dgii, &d.Delivery.Status, &d.Delivery.Code, &d.Delivery.Reason,
		&approval, &d.FailureReason, &payload, &d.CreatedAt, &d.UpdatedAt, &d.Contingency, &d.ITBIS}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	if payload != "" {
		d.Payload = json.RawMessage(payload)
	}
	d.IssueDate = sello.DateOf(issueDate)
	d.SignedAt, d.CreatedAt, d.UpdatedAt = utcPtr(d.SignedAt), utc(d.CreatedAt), utc(d.UpdatedAt)
	if dgii != nil {
		d.DGII = new(sello.DGIIResult)
		if err := json.Unmarshal(dgii, d.DGII); err != nil {
			return nil, fmt.Errorf("decode dgii result: %w", err)
		}
	}
	if approval != nil {
		d.CommercialApproval = new(sello.CommercialApproval)
		if err := json.Unmarshal(approval, d.CommercialApproval); err != nil {
			return nil, fmt.Errorf("decode commercial approval: %w", err)
		}
	}
	return &d, nil
}
