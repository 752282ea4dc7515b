package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// CreateInboundDocument implements sello.InboundStore with
// sello.StoreInboundDocument, in one IMMEDIATE transaction (the single
// writer: receipts of one e-NCF take turns).
func (db *DB) CreateInboundDocument(ctx context.Context, d *sello.InboundDocument, quota int) (*sello.InboundDocument, *sello.InboundENCF, error) {
	return sello.StoreInboundDocument(ctx, d, quota, func(fn func(sello.InboundTx, time.Time) error) error {
		return db.inTx(ctx, func(tx querier) error { return fn(inboundTx{db: db, tx: tx}, db.now()) })
	})
}

// inboundTx is sello.InboundTx over one of the store's transactions.
type inboundTx struct {
	db *DB
	tx querier
}

// InsertInboundDocument implements sello.InboundTx: the same bytes under
// the issuer's e-NCF are inserted once.
func (t inboundTx) InsertInboundDocument(ctx context.Context, n *sello.InboundDocument, sum [32]byte) (bool, error) {
	signer, err := sqlval.JSONOrNull(n.Signer)
	if err != nil {
		return false, err
	}
	status, checked, codigo, mensaje := dgiiColumns(n.DGII)
	res, err := t.tx.exec(ctx, `
		INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
			issue_date, total, xml, acuse, approval, received_at, updated_at, signer,
			xml_sha256, security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, itbis)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (encf, issuer_rnc, tenant_id, environment, xml_sha256) DO NOTHING`,
		n.ID, n.TenantID, n.Environment, n.Type, n.ENCF, n.IssuerRNC, n.IssuerName, n.BuyerRNC,
		formatDate(n.IssueDate), n.Total, n.XML, n.Acuse, n.Approval, formatTime(n.ReceivedAt), formatTime(n.UpdatedAt), signer,
		sum[:], n.SecurityCode, status, checked, codigo, mensaje, n.ITBIS)
	if errorKind(err) == kindForeignKey {
		return false, sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", n.TenantID).WithErr(err)
	} else if err != nil {
		return false, dbError(err, "create inbound document")
	}
	added, err := res.RowsAffected()
	if err != nil {
		return false, dbError(err, "create inbound document")
	}
	return added > 0, nil
}

// LockInboundENCF implements sello.InboundTx and sello.InboundDGIITx:
// the store's single writer already makes them take turns.
func (t inboundTx) LockInboundENCF(context.Context, string, sello.Environment, string, string) error {
	return nil
}

// InboundENCF implements sello.InboundTx.
func (t inboundTx) InboundENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*sello.InboundENCF, error) {
	return findInboundENCF(ctx, t.tx, tenantID, env, issuerRNC, encf, sum, since)
}

// InboundDGII implements sello.InboundDGIITx. Returns NOT_FOUND.
func (t inboundTx) InboundDGII(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundDGII, time.Time, error) {
	var status, checked sql.NullString
	var codigo sql.NullInt64
	var mensaje, updated string
	err := t.tx.queryRow(ctx, `
		SELECT dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, updated_at FROM inbound_documents
		WHERE tenant_id = ? AND environment = ? AND id = ?`, tenantID, env, id).Scan(&status, &checked, &codigo, &mensaje, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, sello.InboundDocumentNotFound(id)
	} else if err != nil {
		return nil, time.Time{}, dbError(err, "find inbound document")
	}
	g, err := scanDGII(status, checked, codigo, mensaje)
	if err != nil {
		return nil, time.Time{}, err
	}
	at, err := parseTime(updated)
	return g, at, err
}

// AcceptedInbound implements sello.InboundDGIITx.
func (t inboundTx) AcceptedInbound(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.AcceptedInbound, error) {
	return findAcceptedInbound(ctx, t.tx, tenantID, env, issuerRNC, encf)
}

// RefuteInbound implements sello.InboundDGIITx: one UPDATE … RETURNING of
// the rows under the e-NCF (an index range); the rows' XML goes back to
// the table as it was, and to none of Go.
func (t inboundTx) RefuteInbound(ctx context.Context, genuine *sello.InboundDocument, mensaje string, now time.Time) ([]*sello.InboundDocument, error) {
	rows, err := t.tx.query(ctx, refuteInboundSQL, sello.DGIIRefuted, mensaje, formatTime(now),
		genuine.ENCF, genuine.IssuerRNC, genuine.TenantID, genuine.Environment, genuine.ID)
	if err != nil {
		return nil, dbError(err, "refute inbound documents")
	}
	defer rows.Close()
	var docs []*sello.InboundDocument
	for rows.Next() {
		d := &sello.InboundDocument{TenantID: genuine.TenantID, Environment: genuine.Environment, ENCF: genuine.ENCF, IssuerRNC: genuine.IssuerRNC}
		var received, updated string
		var status, checked sql.NullString
		var codigo sql.NullInt64
		var mensaje string
		if err := rows.Scan(&d.ID, &d.Type, &d.IssuerName, &d.BuyerRNC, &d.SecurityCode, &received, &updated,
			&status, &checked, &codigo, &mensaje); err != nil {
			return nil, dbError(err, "refute inbound documents")
		}
		if d.DGII, err = scanDGII(status, checked, codigo, mensaje); err != nil {
			return nil, err
		} else if d.ReceivedAt, err = parseTime(received); err != nil {
			return nil, err
		} else if d.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(err, "refute inbound documents")
	}
	sortInbound(docs)
	return docs, nil
}

// InsertEvent implements sello.InboundTx and sello.InboundDGIITx.
func (t inboundTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}

// QueueInboundConfirm implements sello.InboundTx: one row of the
// confirmation queue (migration 25).
func (t inboundTx) QueueInboundConfirm(ctx context.Context, d *sello.InboundDocument) error {
	_, err := t.tx.exec(ctx, queueInboundConfirmSQL, d.ID, d.TenantID, d.Environment)
	return dbError(err, "queue inbound confirmation")
}

// InsertJobs implements sello.InboundConfirmQueueTx.
func (t inboundTx) InsertJobs(ctx context.Context, jobs []sello.Job) error {
	return t.db.insertJobs(ctx, t.tx, jobs)
}

// TakeInboundConfirms implements sello.InboundConfirmQueueTx: the first
// entries of the queue's key, deleted. The transaction is the store's one
// writer: no other holds them.
func (t inboundTx) TakeInboundConfirms(ctx context.Context, limit int) ([]sello.InboundConfirmJob, error) {
	rows, err := t.tx.query(ctx, takeInboundConfirmsSQL, limit)
	if err != nil {
		return nil, dbError(err, "take inbound confirmations")
	}
	defer rows.Close()
	var js []sello.InboundConfirmJob
	for rows.Next() {
		var j sello.InboundConfirmJob
		if err := rows.Scan(&j.InboundDocumentID, &j.TenantID, &j.Environment); err != nil {
			return nil, dbError(err, "take inbound confirmations")
		}
		js = append(js, j)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(err, "take inbound confirmations")
	}
	sortInboundConfirms(js)
	return js, nil
}

// sortInboundConfirms sorts js in their documents' receipt order (their
// ids are UUIDv7), which RETURNING does not keep.
func sortInboundConfirms(js []sello.InboundConfirmJob) {
	slices.SortFunc(js, func(a, b sello.InboundConfirmJob) int { return cmp.Compare(a.InboundDocumentID, b.InboundDocumentID) })
}

// QueueInboundConfirmJobs implements sello.InboundStore with
// sello.QueueInboundConfirmJobs, in one IMMEDIATE transaction; an empty
// queue is seen with a read, without taking the writer.
func (db *DB) QueueInboundConfirmJobs(ctx context.Context, limit int) (int, error) {
	var queued bool
	if err := db.q().queryRow(ctx, anyInboundConfirmSQL).Scan(&queued); err != nil {
		return 0, dbError(err, "read inbound confirmation queue")
	} else if !queued {
		return 0, nil
	}
	return sello.QueueInboundConfirmJobs(ctx, limit, func(fn func(sello.InboundConfirmQueueTx) error) error {
		return db.inTx(ctx, func(tx querier) error { return fn(inboundTx{db: db, tx: tx}) })
	})
}

// The confirmation queue (migration 25), a WITHOUT ROWID table keyed by the
// document's id: the sweep reads the first limit entries of that key, each
// one due, and stops (TestInboundConfirmQueueUsesKey).
const (
	queueInboundConfirmSQL = `INSERT INTO inbound_confirm_queue (inbound_document_id, tenant_id, environment) VALUES (?, ?, ?)`
	anyInboundConfirmSQL   = `SELECT EXISTS (SELECT 1 FROM inbound_confirm_queue)`
	takeInboundConfirmsSQL = `
		DELETE FROM inbound_confirm_queue WHERE inbound_document_id IN (
			SELECT inbound_document_id FROM inbound_confirm_queue ORDER BY inbound_document_id LIMIT ?)
		RETURNING inbound_document_id, tenant_id, environment`
)

// UpdateInboundDGII implements sello.InboundDGIITx.
func (t inboundTx) UpdateInboundDGII(ctx context.Context, d *sello.InboundDocument) error {
	status, checked, codigo, mensaje := dgiiColumns(d.DGII)
	_, err := t.tx.exec(ctx, `
		UPDATE inbound_documents SET dgii_status = ?, dgii_checked_at = ?, dgii_codigo = ?, dgii_mensaje = ?, updated_at = ?
		WHERE tenant_id = ? AND environment = ? AND id = ?`,
		status, checked, codigo, mensaje, formatTime(d.UpdatedAt), d.TenantID, d.Environment, d.ID)
	return dbError(err, "record dgii confirmation")
}

// RecordInboundDGII implements sello.InboundStore with
// sello.RecordInboundDGII, in one IMMEDIATE transaction.
func (db *DB) RecordInboundDGII(ctx context.Context, tenantID string, env sello.Environment, id string, ans sello.InboundDGIIAnswer) (*sello.InboundDocument, error) {
	return sello.RecordInboundDGII(ctx, tenantID, env, id, ans, db.FindInboundDocument, func(fn func(sello.InboundDGIITx, time.Time) error) error {
		return db.inTx(ctx, func(tx querier) error { return fn(inboundTx{db: db, tx: tx}, db.now()) })
	})
}

// dgiiColumns are d's columns: status, checked at, codigo, mensaje.
func dgiiColumns(g *sello.InboundDGII) (status, checkedAt, codigo any, mensaje string) {
	if g == nil {
		return nil, nil, nil, ""
	}
	if g.Codigo != nil {
		codigo = *g.Codigo
	}
	return g.Status, formatTimePtr(g.CheckedAt), codigo, g.Mensaje
}

// The receipt's lookups under one issuer's e-NCF (sello.InboundENCF) and
// the refutation of its documents: each an index range (migrations 17 and
// 18) that reads no other document's row but the one it returns. A
// document's XML precedes most of its columns in the row, and SQLite walks
// a large value's overflow pages to reach the columns after it: so the
// accepted one and the unconfirmed ones are read from covering indexes.
// TestReceiverQueriesUseIndexes holds each to its index.
const (
	// inboundSameSQL reads the document with the receipt's bytes through
	// inbound_documents_bytes.
	inboundSameSQL = `
		SELECT ` + inboundColumns + ` FROM inbound_documents
		WHERE encf = ? AND issuer_rnc = ? AND tenant_id = ? AND environment = ? AND xml_sha256 = ?`
	// inboundAcceptedSQL reads the accepted one from
	// inbound_documents_accepted_ref, which the planner would pass over
	// for the unique inbound_documents_accepted (and read the row).
	inboundAcceptedSQL = `
		SELECT id, security_code, received_at FROM inbound_documents INDEXED BY inbound_documents_accepted_ref
		WHERE encf = ? AND issuer_rnc = ? AND tenant_id = ? AND environment = ? AND dgii_status = 'accepted'`
	// inboundUnconfirmedSQL counts the unconfirmed ones received since in
	// inbound_documents_unconfirmed.
	inboundUnconfirmedSQL = `
		SELECT count(*), min(received_at) FROM inbound_documents
		WHERE encf = ? AND issuer_rnc = ? AND tenant_id = ? AND environment = ? AND received_at >= ?
		  AND dgii_status IN ('pending', 'not_found')`
	// refuteInboundSQL refutes the others whose confirmation is not final.
	refuteInboundSQL = `
		UPDATE inbound_documents SET dgii_status = ?, dgii_mensaje = ?, updated_at = ?
		WHERE encf = ? AND issuer_rnc = ? AND tenant_id = ? AND environment = ? AND id <> ?
		  AND (dgii_status IS NULL OR dgii_status IN ('pending', 'not_found'))
		RETURNING id, type, issuer_name, buyer_rnc, security_code, received_at, updated_at,
			dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje`
)

// findInboundENCF returns what the tenant holds under issuerRNC and encf
// in env for a receipt of the bytes whose SHA-256 is sum
// (sello.InboundENCF).
func findInboundENCF(ctx context.Context, q querier, tenantID string, env sello.Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*sello.InboundENCF, error) {
	var h sello.InboundENCF
	d, err := scanInbound(q.queryRow(ctx, inboundSameSQL, encf, issuerRNC, tenantID, env, sum[:]))
	if err == nil {
		h.Same = d
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, dbError(err, "find inbound document")
	}
	if h.Accepted, err = findAcceptedInbound(ctx, q, tenantID, env, issuerRNC, encf); err != nil {
		return nil, err
	}
	var earliest sql.NullString
	if err := q.queryRow(ctx, inboundUnconfirmedSQL, encf, issuerRNC, tenantID, env, formatTime(since)).Scan(&h.Unconfirmed, &earliest); err != nil {
		return nil, dbError(err, "count inbound documents")
	}
	if earliest.Valid {
		if h.Earliest, err = parseTime(earliest.String); err != nil {
			return nil, err
		}
	}
	return &h, nil
}

// findAcceptedInbound returns the document DGII accepted under issuerRNC
// and encf, nil when none.
func findAcceptedInbound(ctx context.Context, q querier, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.AcceptedInbound, error) {
	var a sello.AcceptedInbound
	var received string
	err := q.queryRow(ctx, inboundAcceptedSQL, encf, issuerRNC, tenantID, env).Scan(&a.ID, &a.SecurityCode, &received)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, dbError(err, "find accepted inbound document")
	}
	if a.ReceivedAt, err = parseTime(received); err != nil {
		return nil, err
	}
	return &a, nil
}

// FindInboundENCF implements sello.InboundStore.
func (db *DB) FindInboundENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string, sum [32]byte, since time.Time) (*sello.InboundENCF, error) {
	return findInboundENCF(ctx, db.q(), tenantID, env, issuerRNC, encf, sum, since)
}

// sortInbound sorts docs oldest received first.
func sortInbound(docs []*sello.InboundDocument) {
	slices.SortFunc(docs, func(a, b *sello.InboundDocument) int {
		return cmp.Or(a.ReceivedAt.Compare(b.ReceivedAt), cmp.Compare(a.ID, b.ID))
	})
}

// FindInboundDocument implements sello.InboundStore. Returns NOT_FOUND.
func (db *DB) FindInboundDocument(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.q(), `id = ?`, tenantID, env, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.InboundDocumentNotFound(id)
	}
	return d, err
}

// FindInboundDocumentByENCF implements sello.InboundStore: the accepted
// one, else the first received. Returns NOT_FOUND.
func (db *DB) FindInboundDocumentByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.q(), `issuer_rnc = ? AND encf = ?
		ORDER BY dgii_status IS 'accepted' DESC, received_at, id LIMIT 1`, tenantID, env, issuerRNC, encf)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.InboundDocumentByENCFNotFound(issuerRNC, encf)
	}
	return d, err
}

// inboundColumns are an inbound document's columns; listColumns leaves
// out its XML and acuse, which only a lookup of one document reads.
const (
	inboundColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, xml, acuse, approval, received_at, updated_at, signer,
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, itbis`
	inboundListColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, x'', x'', approval, received_at, updated_at, signer,
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje, itbis`
)

// findInbound returns the tenant's inbound document in env that where
// (over args) selects, or sql.ErrNoRows.
func findInbound(ctx context.Context, q querier, where string, tenantID string, env sello.Environment, args ...any) (*sello.InboundDocument, error) {
	d, err := scanInbound(q.queryRow(ctx, `
		SELECT `+inboundColumns+` FROM inbound_documents
		WHERE tenant_id = ? AND environment = ? AND `+where,
		append([]any{tenantID, env}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	return d, dbError(err, "find inbound document")
}

// ListInboundDocuments implements sello.InboundStore: newest received
// first, keyset pagination on (received_at, id). Returns INVALID_REQUEST
// for a malformed cursor.
func (db *DB) ListInboundDocuments(ctx context.Context, tenantID string, env sello.Environment, f sello.InboundFilter) ([]*sello.InboundDocument, string, error) {
	limit := f.PageSize()
	q := `SELECT ` + inboundListColumns + ` FROM inbound_documents WHERE tenant_id = ? AND environment = ?`
	args := []any{tenantID, env}
	if f.IssuerRNC != "" {
		q += ` AND issuer_rnc = ?`
		args = append(args, f.IssuerRNC)
	}
	if f.ENCF != "" {
		q += ` AND encf = ?`
		args = append(args, f.ENCF)
	}
	if f.Type != "" {
		q += ` AND type = ?`
		args = append(args, f.Type)
	}
	if f.Approval != "" {
		q += ` AND approval = ?`
		args = append(args, f.Approval)
	}
	if f.DGII != "" {
		q += ` AND dgii_status = ?`
		args = append(args, f.DGII)
	}
	if f.ReceivedFrom != nil {
		q += ` AND received_at >= ?`
		args = append(args, formatTime(f.ReceivedFrom.Truncate(time.Microsecond)))
	}
	if f.ReceivedTo != nil {
		q += ` AND received_at < ?`
		args = append(args, formatTime(f.ReceivedTo.Truncate(time.Microsecond)))
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (received_at, id) < (?, ?)`
		args = append(args, formatTime(at), id)
	}
	q += ` ORDER BY received_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.q().query(ctx, q, args...)
	if err != nil {
		return nil, "", dbError(err, "list inbound documents")
	}
	defer rows.Close()
	var docs []*sello.InboundDocument
	for rows.Next() {
		d, err := scanInbound(rows)
		if err != nil {
			return nil, "", dbError(err, "list inbound documents")
		}
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbError(err, "list inbound documents")
	}
	docs, next := sello.NextInboundPage(docs, limit)
	return docs, next, nil
}

func scanInbound(s scanner) (*sello.InboundDocument, error) {
	var d sello.InboundDocument
	var issued, received, updated string
	var signer, status, checked sql.NullString
	var codigo sql.NullInt64
	var mensaje string
	if err := s.Scan(&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.IssuerRNC, &d.IssuerName, &d.BuyerRNC,
		&issued, &d.Total, &d.XML, &d.Acuse, &d.Approval, &received, &updated, &signer,
		&d.SecurityCode, &status, &checked, &codigo, &mensaje, &d.ITBIS); err != nil {
		return nil, err
	}
	var err error
	if d.DGII, err = scanDGII(status, checked, codigo, mensaje); err != nil {
		return nil, err
	}
	if signer.Valid {
		d.Signer = new(sello.Signer)
		if err := json.Unmarshal([]byte(signer.String), d.Signer); err != nil {
			return nil, fmt.Errorf("decode signer: %w", err)
		}
	}
	if d.IssueDate, err = parseDate(issued); err != nil {
		return nil, err
	} else if d.ReceivedAt, err = parseTime(received); err != nil {
		return nil, err
	} else if d.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &d, nil
}

// scanDGII is the DGII confirmation of a document's columns, nil when
// status is NULL (received before Sello asked DGII).
func scanDGII(status, checked sql.NullString, codigo sql.NullInt64, mensaje string) (*sello.InboundDGII, error) {
	if !status.Valid {
		return nil, nil
	}
	g := &sello.InboundDGII{Status: status.String, Mensaje: mensaje}
	if codigo.Valid {
		c := int(codigo.Int64)
		g.Codigo = &c
	}
	var err error
	if g.CheckedAt, err = parseTimePtr(checked); err != nil {
		return nil, err
	}
	return g, nil
}

// AddIssuerReceipts implements sello.InboundTx and sello.InboundDGIITx.
func (t inboundTx) AddIssuerReceipts(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, hour time.Time, n int) error {
	if _, err := t.tx.exec(ctx, addIssuerReceiptsSQL, tenantID, env, issuerRNC, formatTime(hour), n); err != nil {
		return dbError(err, "count issuer's receipt")
	}
	return nil
}

// The issuer's counts per hour (migration 22).
const (
	addIssuerReceiptsSQL = `
		INSERT INTO inbound_issuer_receipts (tenant_id, environment, issuer_rnc, hour, n) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, environment, issuer_rnc, hour) DO UPDATE SET n = n + excluded.n`
	countIssuerReceiptsSQL = `
		SELECT coalesce(sum(n), 0) FROM inbound_issuer_receipts
		WHERE tenant_id = ? AND environment = ? AND issuer_rnc = ? AND hour >= ?`
	pruneIssuerReceiptsSQL = `DELETE FROM inbound_issuer_receipts WHERE hour <= ?`
)

// CountInboundFromIssuerHours implements sello.InboundStore: a range of
// the counts' primary key.
func (db *DB) CountInboundFromIssuerHours(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, since time.Time) (int, error) {
	var n int
	err := db.q().queryRow(ctx, countIssuerReceiptsSQL, tenantID, env, issuerRNC, formatTime(sello.IssuerQuotaHour(since))).Scan(&n)
	if err != nil {
		return 0, dbError(err, "count inbound documents")
	}
	return n, nil
}

// PruneIssuerReceipts implements sello.InboundStore: a range of the
// counts' hour index.
func (db *DB) PruneIssuerReceipts(ctx context.Context, since time.Time) (int64, error) {
	var n int64
	err := db.inTx(ctx, func(tx querier) error {
		res, err := tx.exec(ctx, pruneIssuerReceiptsSQL, formatTime(since.Add(-time.Hour)))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, dbError(err, "prune issuer counts")
	}
	return n, nil
}

// countInboundFromIssuerSQL is CountInboundFromIssuer's query.
const countInboundFromIssuerSQL = `
	SELECT count(*), min(received_at) FROM inbound_documents
	WHERE tenant_id = ? AND environment = ? AND issuer_rnc = ? AND received_at >= ?
	  AND (dgii_status IS NULL OR dgii_status <> 'accepted')`

// CountInboundFromIssuer implements sello.InboundStore: a range of the
// index on tenant, environment, issuer and receivedAt, which covers it
// (migration 18).
func (db *DB) CountInboundFromIssuer(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, since time.Time) (int, time.Time, error) {
	var n int
	var earliest sql.NullString
	err := db.q().queryRow(ctx, countInboundFromIssuerSQL, tenantID, env, issuerRNC, formatTime(since)).Scan(&n, &earliest)
	if err != nil {
		return 0, time.Time{}, dbError(err, "count inbound documents")
	} else if !earliest.Valid {
		return 0, time.Time{}, nil
	}
	at, err := parseTime(earliest.String)
	return n, at, err
}
