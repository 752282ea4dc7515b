package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// CreateInboundDocument implements sello.InboundStore with
// sello.StoreInboundDocument, in one transaction holding the e-NCF
// (LockInboundENCF).
func (db *DB) CreateInboundDocument(ctx context.Context, d *sello.InboundDocument, quota int) (*sello.InboundDocument, *sello.InboundENCF, error) {
	return sello.StoreInboundDocument(ctx, d, quota, func(fn func(sello.InboundTx, time.Time) error) error {
		return db.inTx(ctx, func(tx pgx.Tx) error { return fn(inboundTx{db: db, tx: tx}, db.now()) })
	})
}

// inboundTx is sello.InboundTx over one of the store's transactions.
type inboundTx struct {
	db *DB
	tx pgx.Tx
}

// InsertInboundDocument implements sello.InboundTx. A concurrent insert of
// the same bytes under the e-NCF waits for the other transaction and then
// inserts nothing.
func (t inboundTx) InsertInboundDocument(ctx context.Context, n *sello.InboundDocument, sum [32]byte) (bool, error) {
	signer, err := sqlval.JSONOrNull(n.Signer)
	if err != nil {
		return false, err
	}
	status, checked, codigo, mensaje := dgiiColumns(n.DGII)
	tag, err := t.tx.Exec(ctx, `
		INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
			issue_date, total, xml, acuse, approval, received_at, updated_at, signer,
			xml_sha256, security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, itbis)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
		ON CONFLICT (encf, issuer_rnc, tenant_id, environment, xml_sha256) DO NOTHING`,
		n.ID, n.TenantID, n.Environment, n.Type, n.ENCF, n.IssuerRNC, n.IssuerName, n.BuyerRNC,
		dateValue(n.IssueDate), n.Total, n.XML, n.Acuse, n.Approval, n.ReceivedAt, n.UpdatedAt, signer,
		sum[:], n.SecurityCode, status, checked, codigo, mensaje, n.ITBIS)
	if errorKind(err) == kindForeignKey {
		return false, sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", n.TenantID).WithErr(err)
	} else if err != nil {
		return false, dbError(err, "create inbound document")
	}
	return tag.RowsAffected() > 0, nil
}

// LockInboundENCF implements sello.InboundTx and sello.InboundDGIITx: a
// transaction advisory lock on a hash of the tenant, environment, issuer
// and e-NCF. Every transaction that stores a document under an e-NCF or
// records DGII's answer about one takes it first, before any row lock.
func (t inboundTx) LockInboundENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) error {
	_, err := t.tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
		"inbound_documents/"+tenantID+"/"+string(env)+"/"+issuerRNC+"/"+encf)
	return dbError(err, "lock e-NCF")
}

// InboundENCF implements sello.InboundTx.
func (t inboundTx) InboundENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*sello.InboundENCF, error) {
	return findInboundENCF(ctx, t.tx, tenantID, env, issuerRNC, encf, sum, since)
}

// InboundDGII implements sello.InboundDGIITx. Returns NOT_FOUND.
func (t inboundTx) InboundDGII(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundDGII, time.Time, error) {
	var status, mensaje *string
	var checked *time.Time
	var codigo *int32
	var updated time.Time
	err := t.tx.QueryRow(ctx, `
		SELECT dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, updated_at FROM inbound_documents
		WHERE tenant_id = $1 AND environment = $2 AND id = $3`, tenantID, env, id).Scan(&status, &checked, &codigo, &mensaje, &updated)
	if isNoRows(err) {
		return nil, time.Time{}, sello.InboundDocumentNotFound(id)
	} else if err != nil {
		return nil, time.Time{}, dbError(err, "find inbound document")
	}
	return dgiiOf(status, checked, codigo, mensaje), utc(updated), nil
}

// AcceptedInbound implements sello.InboundDGIITx.
func (t inboundTx) AcceptedInbound(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.AcceptedInbound, error) {
	return scanAcceptedInbound(t.tx.QueryRow(ctx, inboundAcceptedSQL, encf, issuerRNC, tenantID, env))
}

// RefuteInbound implements sello.InboundDGIITx: one UPDATE … RETURNING of
// the rows under the e-NCF (an index range); their XML, stored apart
// (TOAST), is neither read nor copied.
func (t inboundTx) RefuteInbound(ctx context.Context, genuine *sello.InboundDocument, mensaje string, now time.Time) ([]*sello.InboundDocument, error) {
	rows, err := t.tx.Query(ctx, refuteInboundSQL, sello.DGIIRefuted, mensaje, now,
		genuine.ENCF, genuine.IssuerRNC, genuine.TenantID, genuine.Environment, genuine.ID)
	if err != nil {
		return nil, dbError(err, "refute inbound documents")
	}
	docs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.InboundDocument, error) {
		d := &sello.InboundDocument{TenantID: genuine.TenantID, Environment: genuine.Environment, ENCF: genuine.ENCF, IssuerRNC: genuine.IssuerRNC}
		var status, mensaje *string
		var checked *time.Time
		var codigo *int32
		if err := r.Scan(&d.ID, &d.Type, &d.IssuerName, &d.BuyerRNC, &d.SecurityCode, &d.ReceivedAt, &d.UpdatedAt,
			&status, &checked, &codigo, &mensaje); err != nil {
			return nil, err
		}
		d.ReceivedAt, d.UpdatedAt = utc(d.ReceivedAt), utc(d.UpdatedAt)
		d.DGII = dgiiOf(status, checked, codigo, mensaje)
		return d, nil
	})
	if err != nil {
		return nil, dbError(err, "refute inbound documents")
	}
	slices.SortFunc(docs, func(a, b *sello.InboundDocument) int {
		return cmp.Or(a.ReceivedAt.Compare(b.ReceivedAt), cmp.Compare(a.ID, b.ID))
	})
	return docs, nil
}

// InsertEvent implements sello.InboundTx and sello.InboundDGIITx.
func (t inboundTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}

// QueueInboundConfirm implements sello.InboundTx: one row of the
// confirmation queue (migration 25).
func (t inboundTx) QueueInboundConfirm(ctx context.Context, d *sello.InboundDocument) error {
	_, err := t.tx.Exec(ctx, queueInboundConfirmSQL, d.ID, d.TenantID, d.Environment)
	return dbError(err, "queue inbound confirmation")
}

// InsertJobs implements sello.InboundConfirmQueueTx.
func (t inboundTx) InsertJobs(ctx context.Context, jobs []sello.Job) error {
	return t.db.insertJobs(ctx, t.tx, jobs)
}

// TakeInboundConfirms implements sello.InboundConfirmQueueTx: the first
// entries of the queue's key that no other transaction holds (SKIP
// LOCKED), deleted. An entry a concurrent sweep deleted and committed
// meanwhile is not returned: a row is deleted once.
func (t inboundTx) TakeInboundConfirms(ctx context.Context, limit int) ([]sello.InboundConfirmJob, error) {
	rows, err := t.tx.Query(ctx, takeInboundConfirmsSQL, limit)
	if err != nil {
		return nil, dbError(err, "take inbound confirmations")
	}
	js, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sello.InboundConfirmJob, error) {
		var j sello.InboundConfirmJob
		err := r.Scan(&j.InboundDocumentID, &j.TenantID, &j.Environment)
		return j, err
	})
	if err != nil {
		return nil, dbError(err, "take inbound confirmations")
	}
	// In the documents' receipt order (their ids are UUIDv7), which
	// RETURNING does not keep.
	slices.SortFunc(js, func(a, b sello.InboundConfirmJob) int { return cmp.Compare(a.InboundDocumentID, b.InboundDocumentID) })
	return js, nil
}

// QueueInboundConfirmJobs implements sello.InboundStore with
// sello.QueueInboundConfirmJobs, in one transaction; an empty queue is
// seen with a read, without beginning one.
func (db *DB) QueueInboundConfirmJobs(ctx context.Context, limit int) (int, error) {
	var queued bool
	if err := db.pool.QueryRow(ctx, anyInboundConfirmSQL).Scan(&queued); err != nil {
		return 0, dbError(err, "read inbound confirmation queue")
	} else if !queued {
		return 0, nil
	}
	return sello.QueueInboundConfirmJobs(ctx, limit, func(fn func(sello.InboundConfirmQueueTx) error) error {
		return db.inTx(ctx, func(tx pgx.Tx) error { return fn(inboundTx{db: db, tx: tx}) })
	})
}

// The confirmation queue (migration 25), keyed by the document's id: the
// sweep reads the first limit entries of that key, each one due
// (TestInboundConfirmQueueUsesKey).
const (
	queueInboundConfirmSQL = `INSERT INTO inbound_confirm_queue (inbound_document_id, tenant_id, environment) VALUES ($1, $2, $3)`
	anyInboundConfirmSQL   = `SELECT EXISTS (SELECT 1 FROM inbound_confirm_queue)`
	takeInboundConfirmsSQL = `
		DELETE FROM inbound_confirm_queue WHERE inbound_document_id = ANY (ARRAY (
			SELECT inbound_document_id FROM inbound_confirm_queue ORDER BY inbound_document_id LIMIT $1
			FOR UPDATE SKIP LOCKED))
		RETURNING inbound_document_id, tenant_id, environment`
)

// UpdateInboundDGII implements sello.InboundDGIITx.
func (t inboundTx) UpdateInboundDGII(ctx context.Context, d *sello.InboundDocument) error {
	status, checked, codigo, mensaje := dgiiColumns(d.DGII)
	_, err := t.tx.Exec(ctx, `
		UPDATE inbound_documents SET dgii_status = $4, dgii_checked_at = $5, dgii_codigo = $6, dgii_mensaje = $7, updated_at = $8
		WHERE tenant_id = $1 AND environment = $2 AND id = $3`,
		d.TenantID, d.Environment, d.ID, status, checked, codigo, mensaje, d.UpdatedAt)
	return dbError(err, "record dgii confirmation")
}

// RecordInboundDGII implements sello.InboundStore with
// sello.RecordInboundDGII, in one transaction holding the document's e-NCF
// (LockInboundENCF).
func (db *DB) RecordInboundDGII(ctx context.Context, tenantID string, env sello.Environment, id string, ans sello.InboundDGIIAnswer) (*sello.InboundDocument, error) {
	return sello.RecordInboundDGII(ctx, tenantID, env, id, ans, db.FindInboundDocument, func(fn func(sello.InboundDGIITx, time.Time) error) error {
		return db.inTx(ctx, func(tx pgx.Tx) error { return fn(inboundTx{db: db, tx: tx}, db.now()) })
	})
}

// dgiiColumns are g's columns: status, checked at, codigo, mensaje.
func dgiiColumns(g *sello.InboundDGII) (status *string, checkedAt *time.Time, codigo *int, mensaje string) {
	if g == nil {
		return nil, nil, nil, ""
	}
	return &g.Status, g.CheckedAt, g.Codigo, g.Mensaje
}

// The receipt's lookups under one issuer's e-NCF (sello.InboundENCF) and
// the refutation of its documents: each an index range (migrations 18 and
// 19) that reads no other document's row but the one it returns.
// TestReceiverQueriesUseIndexes holds each to its index.
const (
	// inboundSameSQL reads the document with the receipt's bytes through
	// inbound_documents_bytes.
	inboundSameSQL = `
		SELECT ` + inboundColumns + ` FROM inbound_documents
		WHERE encf = $1 AND issuer_rnc = $2 AND tenant_id = $3 AND environment = $4 AND xml_sha256 = $5`
	// inboundAcceptedSQL reads the accepted one through
	// inbound_documents_accepted.
	inboundAcceptedSQL = `
		SELECT id, security_code, received_at FROM inbound_documents
		WHERE encf = $1 AND issuer_rnc = $2 AND tenant_id = $3 AND environment = $4 AND dgii_status = 'accepted'`
	// inboundUnconfirmedSQL counts the unconfirmed ones received since in
	// inbound_documents_unconfirmed.
	inboundUnconfirmedSQL = `
		SELECT count(*), min(received_at) FROM inbound_documents
		WHERE encf = $1 AND issuer_rnc = $2 AND tenant_id = $3 AND environment = $4 AND received_at >= $5
		  AND dgii_status IN ('pending', 'not_found')`
	// refuteInboundSQL refutes the others whose confirmation is not final.
	refuteInboundSQL = `
		UPDATE inbound_documents SET dgii_status = $1, dgii_mensaje = $2, updated_at = $3
		WHERE encf = $4 AND issuer_rnc = $5 AND tenant_id = $6 AND environment = $7 AND id <> $8
		  AND (dgii_status IS NULL OR dgii_status IN ('pending', 'not_found'))
		RETURNING id, type, issuer_name, buyer_rnc, security_code, received_at, updated_at,
			dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje`
)

// batcher is a pool or a transaction.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// findInboundENCF returns what the tenant holds under issuerRNC and encf
// in env for a receipt of the bytes whose SHA-256 is sum
// (sello.InboundENCF): its three queries in one round trip.
func findInboundENCF(ctx context.Context, q batcher, tenantID string, env sello.Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*sello.InboundENCF, error) {
	var h sello.InboundENCF
	b := &pgx.Batch{}
	b.Queue(inboundSameSQL, encf, issuerRNC, tenantID, env, sum[:]).QueryRow(func(r pgx.Row) error {
		d, err := scanInbound(r)
		if isNoRows(err) {
			return nil
		}
		h.Same = d
		return err
	})
	b.Queue(inboundAcceptedSQL, encf, issuerRNC, tenantID, env).QueryRow(func(r pgx.Row) error {
		var err error
		h.Accepted, err = scanAcceptedInbound(r)
		return err
	})
	b.Queue(inboundUnconfirmedSQL, encf, issuerRNC, tenantID, env, since).QueryRow(func(r pgx.Row) error {
		var earliest *time.Time
		if err := r.Scan(&h.Unconfirmed, &earliest); err != nil {
			return err
		}
		if earliest != nil {
			h.Earliest = utc(*earliest)
		}
		return nil
	})
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return nil, dbError(err, "find inbound documents")
	}
	return &h, nil
}

// scanAcceptedInbound scans inboundAcceptedSQL's row: nil when none.
func scanAcceptedInbound(r pgx.Row) (*sello.AcceptedInbound, error) {
	var a sello.AcceptedInbound
	err := r.Scan(&a.ID, &a.SecurityCode, &a.ReceivedAt)
	if isNoRows(err) {
		return nil, nil
	} else if err != nil {
		return nil, dbError(err, "find accepted inbound document")
	}
	a.ReceivedAt = utc(a.ReceivedAt)
	return &a, nil
}

// FindInboundENCF implements sello.InboundStore.
func (db *DB) FindInboundENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*sello.InboundENCF, error) {
	return findInboundENCF(ctx, db.pool, tenantID, env, issuerRNC, encf, sum, since)
}

// FindInboundDocument implements sello.InboundStore. Returns NOT_FOUND.
func (db *DB) FindInboundDocument(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.pool, `id = $3`, tenantID, env, id)
	if isNoRows(err) {
		return nil, sello.InboundDocumentNotFound(id)
	}
	return d, err
}

// FindInboundDocumentByENCF implements sello.InboundStore: the accepted
// one, else the first received. Returns NOT_FOUND.
func (db *DB) FindInboundDocumentByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.pool, `issuer_rnc = $3 AND encf = $4
		ORDER BY dgii_status IS NOT DISTINCT FROM 'accepted' DESC, received_at, id LIMIT 1`, tenantID, env, issuerRNC, encf)
	if isNoRows(err) {
		return nil, sello.InboundDocumentByENCFNotFound(issuerRNC, encf)
	}
	return d, err
}

// rowQuerier is a pool or a transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// inboundColumns are an inbound document's columns; inboundListColumns
// leaves out its XML and acuse, which only a lookup of one document reads.
const (
	inboundColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, xml, acuse, approval, received_at, updated_at, signer,
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, itbis`
	inboundListColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, ''::bytea, ''::bytea, approval, received_at, updated_at, signer,
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, itbis`
)

// findInbound returns the tenant's inbound document in env that where
// ($3 onwards, over args) selects, or pgx.ErrNoRows.
func findInbound(ctx context.Context, q rowQuerier, where string, tenantID string, env sello.Environment, args ...any) (*sello.InboundDocument, error) {
	d, err := scanInbound(q.QueryRow(ctx, `
		SELECT `+inboundColumns+` FROM inbound_documents
		WHERE tenant_id = $1 AND environment = $2 AND `+where,
		append([]any{tenantID, env}, args...)...))
	if isNoRows(err) {
		return nil, err
	}
	return d, dbError(err, "find inbound document")
}

// ListInboundDocuments implements sello.InboundStore: newest received
// first, keyset pagination on (received_at, id). Returns INVALID_REQUEST
// for a malformed cursor.
func (db *DB) ListInboundDocuments(ctx context.Context, tenantID string, env sello.Environment, f sello.InboundFilter) ([]*sello.InboundDocument, string, error) {
	limit := f.PageSize()
	q, args, err := listInboundSQL(tenantID, env, f, limit+1)
	if err != nil {
		return nil, "", err
	}
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, "", dbError(err, "list inbound documents")
	}
	docs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.InboundDocument, error) { return scanInbound(r) })
	if err != nil {
		return nil, "", dbError(err, "list inbound documents")
	}
	docs, next := sello.NextInboundPage(docs, limit)
	return docs, next, nil
}

// listInboundSQL is ListInboundDocuments' query of rows documents under
// f, and its arguments. Unfiltered, it walks inbound_documents_list
// (migration 24) backwards from the cursor (TestListQueriesUseIndexes).
// Returns INVALID_REQUEST for a malformed cursor.
func listInboundSQL(tenantID string, env sello.Environment, f sello.InboundFilter, rows int) (string, []any, error) {
	q := `SELECT ` + inboundListColumns + ` FROM inbound_documents WHERE tenant_id = $1 AND environment = $2`
	args := []any{tenantID, env}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.IssuerRNC != "" {
		q += ` AND issuer_rnc = ` + arg(f.IssuerRNC)
	}
	if f.ENCF != "" {
		q += ` AND encf = ` + arg(f.ENCF)
	}
	if f.Type != "" {
		q += ` AND type = ` + arg(f.Type)
	}
	if f.Approval != "" {
		q += ` AND approval = ` + arg(f.Approval)
	}
	if f.DGII != "" {
		q += ` AND dgii_status = ` + arg(f.DGII)
	}
	if f.ReceivedFrom != nil {
		q += ` AND received_at >= ` + arg(f.ReceivedFrom.UTC().Truncate(time.Microsecond))
	}
	if f.ReceivedTo != nil {
		q += ` AND received_at < ` + arg(f.ReceivedTo.UTC().Truncate(time.Microsecond))
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		q += ` AND (received_at, id) < (` + arg(at) + `, ` + arg(id) + `)`
	}
	q += ` ORDER BY received_at DESC, id DESC LIMIT ` + arg(rows)
	return q, args, nil
}

func scanInbound(r pgx.Row) (*sello.InboundDocument, error) {
	var d sello.InboundDocument
	var issued time.Time
	var signer []byte
	var status, mensaje *string
	var checked *time.Time
	var codigo *int32
	if err := r.Scan(&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.IssuerRNC, &d.IssuerName, &d.BuyerRNC,
		&issued, &d.Total, &d.XML, &d.Acuse, &d.Approval, &d.ReceivedAt, &d.UpdatedAt, &signer,
		&d.SecurityCode, &status, &checked, &codigo, &mensaje, &d.ITBIS); err != nil {
		return nil, err
	}
	d.DGII = dgiiOf(status, checked, codigo, mensaje)
	if signer != nil {
		d.Signer = new(sello.Signer)
		if err := json.Unmarshal(signer, d.Signer); err != nil {
			return nil, fmt.Errorf("decode signer: %w", err)
		}
	}
	d.IssueDate = sello.DateOf(issued)
	d.ReceivedAt, d.UpdatedAt = utc(d.ReceivedAt), utc(d.UpdatedAt)
	return &d, nil
}

// dgiiOf is the DGII confirmation of a document's columns, nil when status
// is NULL (received before Sello asked DGII).
func dgiiOf(status *string, checked *time.Time, codigo *int32, mensaje *string) *sello.InboundDGII {
	if status == nil {
		return nil
	}
	g := &sello.InboundDGII{Status: *status}
	if mensaje != nil {
		g.Mensaje = *mensaje
	}
	if codigo != nil {
		c := int(*codigo)
		g.Codigo = &c
	}
	if checked != nil {
		t := utc(*checked)
		g.CheckedAt = &t
	}
	return g
}

// AddIssuerReceipts implements sello.InboundTx and sello.InboundDGIITx:
// the hour's row stays locked until the transaction ends, so a receipt
// or acceptance of the same issuer in the hour waits for its commit.
func (t inboundTx) AddIssuerReceipts(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, hour time.Time, n int) error {
	if _, err := t.tx.Exec(ctx, addIssuerReceiptsSQL, tenantID, env, issuerRNC, hour, n); err != nil {
		return dbError(err, "count issuer's receipt")
	}
	return nil
}

// The issuer's counts per hour (migration 23).
const (
	addIssuerReceiptsSQL = `
		INSERT INTO inbound_issuer_receipts (tenant_id, environment, issuer_rnc, hour, n) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant_id, environment, issuer_rnc, hour) DO UPDATE SET n = inbound_issuer_receipts.n + excluded.n`
	countIssuerReceiptsSQL = `
		SELECT coalesce(sum(n), 0) FROM inbound_issuer_receipts
		WHERE tenant_id = $1 AND environment = $2 AND issuer_rnc = $3 AND hour >= $4`
	pruneIssuerReceiptsSQL = `DELETE FROM inbound_issuer_receipts WHERE hour <= $1`
)

// CountInboundFromIssuerHours implements sello.InboundStore: a range of
// the counts' primary key.
func (db *DB) CountInboundFromIssuerHours(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, since time.Time) (int, error) {
	var n int64
	err := db.pool.QueryRow(ctx, countIssuerReceiptsSQL, tenantID, env, issuerRNC, sello.IssuerQuotaHour(since)).Scan(&n)
	if err != nil {
		return 0, dbError(err, "count inbound documents")
	}
	return int(n), nil
}

// PruneIssuerReceipts implements sello.InboundStore: a range of the
// counts' hour index.
func (db *DB) PruneIssuerReceipts(ctx context.Context, since time.Time) (int64, error) {
	tag, err := db.pool.Exec(ctx, pruneIssuerReceiptsSQL, since.Add(-time.Hour))
	if err != nil {
		return 0, dbError(err, "prune issuer counts")
	}
	return tag.RowsAffected(), nil
}

// countInboundFromIssuerSQL is CountInboundFromIssuer's query.
const countInboundFromIssuerSQL = `
	SELECT count(*), min(received_at) FROM inbound_documents
	WHERE tenant_id = $1 AND environment = $2 AND issuer_rnc = $3 AND received_at >= $4
	  AND (dgii_status IS NULL OR dgii_status <> 'accepted')`

// CountInboundFromIssuer implements sello.InboundStore: a range of the
// index on tenant, environment, issuer and receivedAt (migration 15).
func (db *DB) CountInboundFromIssuer(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, since time.Time) (int, time.Time, error) {
	var n int
	var earliest *time.Time
	err := db.pool.QueryRow(ctx, countInboundFromIssuerSQL, tenantID, env, issuerRNC, since).Scan(&n, &earliest)
	if err != nil {
		return 0, time.Time{}, dbError(err, "count inbound documents")
	} else if earliest == nil {
		return 0, time.Time{}, nil
	}
	return n, utc(*earliest), nil
}
