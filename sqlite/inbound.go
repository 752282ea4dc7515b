package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// CreateInboundDocument implements sello.InboundStore with
// sello.StoreInboundDocument, in one IMMEDIATE transaction.
func (db *DB) CreateInboundDocument(ctx context.Context, d *sello.InboundDocument) (*sello.InboundDocument, bool, error) {
	return sello.StoreInboundDocument(ctx, d, func(fn func(sello.InboundTx, time.Time) error) error {
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
func (t inboundTx) InsertInboundDocument(ctx context.Context, n *sello.InboundDocument) (bool, error) {
	signer, err := sqlval.JSONOrNull(n.Signer)
	if err != nil {
		return false, err
	}
	status, checked, codigo, mensaje := dgiiColumns(n.DGII)
	sum := sha256.Sum256(n.XML)
	res, err := t.tx.exec(ctx, `
		INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
			issue_date, total, xml, acuse, approval, received_at, updated_at, signer,
			xml_sha256, security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (encf, issuer_rnc, tenant_id, environment, xml_sha256) DO NOTHING`,
		n.ID, n.TenantID, n.Environment, n.Type, n.ENCF, n.IssuerRNC, n.IssuerName, n.BuyerRNC,
		formatDate(n.IssueDate), n.Total, n.XML, n.Acuse, n.Approval, formatTime(n.ReceivedAt), formatTime(n.UpdatedAt), signer,
		sum[:], n.SecurityCode, status, checked, codigo, mensaje)
	if errorKind(err) == kindForeignKey {
		return false, &sello.Error{Code: sello.CodeNotFound, Message: "Tenant \"" + n.TenantID + "\" not found.", Err: err}
	} else if err != nil {
		return false, dbError(err, "create inbound document")
	}
	added, err := res.RowsAffected()
	if err != nil {
		return false, dbError(err, "create inbound document")
	}
	return added > 0, nil
}

// InboundDocumentsByENCF implements sello.InboundTx and
// sello.InboundDGIITx (the single writer is the lock).
func (t inboundTx) InboundDocumentsByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) ([]*sello.InboundDocument, error) {
	return findInboundsByENCF(ctx, t.tx, tenantID, env, issuerRNC, encf)
}

// InsertEvent implements sello.InboundTx and sello.InboundDGIITx.
func (t inboundTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}

// InsertJobs implements sello.InboundTx.
func (t inboundTx) InsertJobs(ctx context.Context, jobs []sello.Job) error {
	return t.db.insertJobs(ctx, t.tx, jobs)
}

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

// findInboundsByENCF returns every document the tenant received of
// issuerRNC and encf in env, oldest first.
func findInboundsByENCF(ctx context.Context, q querier, tenantID string, env sello.Environment, issuerRNC, encf string) ([]*sello.InboundDocument, error) {
	rows, err := q.query(ctx, `
		SELECT `+inboundColumns+` FROM inbound_documents
		WHERE tenant_id = ? AND environment = ? AND issuer_rnc = ? AND encf = ?
		ORDER BY received_at, id`, tenantID, env, issuerRNC, encf)
	if err != nil {
		return nil, dbError(err, "find inbound documents")
	}
	defer rows.Close()
	var docs []*sello.InboundDocument
	for rows.Next() {
		d, err := scanInbound(rows)
		if err != nil {
			return nil, dbError(err, "find inbound documents")
		}
		docs = append(docs, d)
	}
	return docs, dbError(rows.Err(), "find inbound documents")
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

// FindInboundDocumentsByENCF implements sello.InboundStore.
func (db *DB) FindInboundDocumentsByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) ([]*sello.InboundDocument, error) {
	return findInboundsByENCF(ctx, db.q(), tenantID, env, issuerRNC, encf)
}

// inboundColumns are an inbound document's columns; listColumns leaves
// out its XML and acuse, which only a lookup of one document reads.
const (
	inboundColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, xml, acuse, approval, received_at, updated_at, signer,
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje`
	inboundListColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, x'', x'', approval, received_at, updated_at, signer,
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje`
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
		&d.SecurityCode, &status, &checked, &codigo, &mensaje); err != nil {
		return nil, err
	}
	if status.Valid {
		d.DGII = &sello.InboundDGII{Status: status.String, Mensaje: mensaje}
		if codigo.Valid {
			c := int(codigo.Int64)
			d.DGII.Codigo = &c
		}
		var err error
		if d.DGII.CheckedAt, err = parseTimePtr(checked); err != nil {
			return nil, err
		}
	}
	if signer.Valid {
		d.Signer = new(sello.Signer)
		if err := json.Unmarshal([]byte(signer.String), d.Signer); err != nil {
			return nil, fmt.Errorf("decode signer: %w", err)
		}
	}
	var err error
	if d.IssueDate, err = parseDate(issued); err != nil {
		return nil, err
	} else if d.ReceivedAt, err = parseTime(received); err != nil {
		return nil, err
	} else if d.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &d, nil
}

// issuerDocumentsSQL counts, up to quota, the tenant's documents of an
// issuer received since a time, accepted or not: from the issuer's index
// alone (migration 14), no row read. The quota is written into the
// statement, not bound: SQLite reads a bound LIMIT into the plan, and so
// prepares the statement again every time the value is bound (about
// 0.1 ms a call, more than the count); a statement per quota is one.
func issuerDocumentsSQL(quota int) string {
	return fmt.Sprintf(`
	SELECT count(*) FROM (SELECT 1 FROM inbound_documents
	WHERE tenant_id = ? AND environment = ? AND issuer_rnc = ? AND received_at >= ? LIMIT %d)`, quota)
}

// issuerUnacceptedSQL counts the latest, up to quota, of the tenant's
// documents of an issuer received since a time that DGII has not
// accepted, and the earliest of them. A row keeps the document's XML and
// acuse before its dgii_status, and a row longer than a page spills into a
// chain of overflow pages that SQLite walks to reach a column beyond it:
// reading dgii_status cost a 287 KB document about 70 page reads. So the
// query reads no column past the blobs: a document is accepted when its
// own row is the one the partial index of accepted documents holds under
// its e-NCF (inbound_documents_accepted, migration 17; its entries carry
// their rowid), which it finds from the e-NCF, near the row's start. The
// unary + keeps the planner from looking the row up by rowid, which would
// read dgii_status again. The quota is written in (issuerDocumentsSQL).
func issuerUnacceptedSQL(quota int) string {
	return fmt.Sprintf(`
	SELECT count(*), min(received_at) FROM (SELECT d.received_at FROM inbound_documents d
	WHERE d.tenant_id = ? AND d.environment = ? AND d.issuer_rnc = ? AND d.received_at >= ?
	  AND NOT EXISTS (SELECT 1 FROM inbound_documents a
	    WHERE a.encf = d.encf AND a.issuer_rnc = d.issuer_rnc AND a.tenant_id = d.tenant_id
	      AND a.environment = d.environment AND a.dgii_status = 'accepted' AND +a.rowid = d.rowid)
	ORDER BY d.received_at DESC LIMIT %d)`, quota)
}

// IssuerQuotaReached implements sello.InboundStore: while fewer than quota
// documents of the issuer arrived in the window at all, a count of the
// issuer's index says so; else the latest quota of those DGII has not
// accepted are counted.
func (db *DB) IssuerQuotaReached(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, since time.Time, quota int) (bool, time.Time, error) {
	if quota <= 0 {
		return false, time.Time{}, nil
	}
	var n int
	err := db.q().queryRow(ctx, issuerDocumentsSQL(quota), tenantID, env, issuerRNC, formatTime(since)).Scan(&n)
	if err != nil {
		return false, time.Time{}, dbError(err, "count inbound documents")
	} else if n < quota {
		return false, time.Time{}, nil
	}
	var earliest sql.NullString
	err = db.q().queryRow(ctx, issuerUnacceptedSQL(quota), tenantID, env, issuerRNC, formatTime(since)).Scan(&n, &earliest)
	if err != nil {
		return false, time.Time{}, dbError(err, "count inbound documents")
	} else if n < quota {
		return false, time.Time{}, nil
	}
	at, err := parseTime(earliest.String)
	return true, at, err
}
