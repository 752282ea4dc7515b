package postgres

import (
	"cmp"
	"context"
	"crypto/sha256"
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
// sello.StoreInboundDocument, in one transaction.
func (db *DB) CreateInboundDocument(ctx context.Context, d *sello.InboundDocument) (*sello.InboundDocument, bool, error) {
	return sello.StoreInboundDocument(ctx, d, func(fn func(sello.InboundTx, time.Time) error) error {
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
func (t inboundTx) InsertInboundDocument(ctx context.Context, n *sello.InboundDocument) (bool, error) {
	signer, err := sqlval.JSONOrNull(n.Signer)
	if err != nil {
		return false, err
	}
	status, checked, codigo, mensaje := dgiiColumns(n.DGII)
	sum := sha256.Sum256(n.XML)
	tag, err := t.tx.Exec(ctx, `
		INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
			issue_date, total, xml, acuse, approval, received_at, updated_at, signer,
			xml_sha256, security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
		ON CONFLICT (encf, issuer_rnc, tenant_id, environment, xml_sha256) DO NOTHING`,
		n.ID, n.TenantID, n.Environment, n.Type, n.ENCF, n.IssuerRNC, n.IssuerName, n.BuyerRNC,
		dateValue(n.IssueDate), n.Total, n.XML, n.Acuse, n.Approval, n.ReceivedAt, n.UpdatedAt, signer,
		sum[:], n.SecurityCode, status, checked, codigo, mensaje)
	if errorKind(err) == kindForeignKey {
		return false, &sello.Error{Code: sello.CodeNotFound, Message: "Tenant \"" + n.TenantID + "\" not found.", Err: err}
	} else if err != nil {
		return false, dbError(err, "create inbound document")
	}
	return tag.RowsAffected() > 0, nil
}

// InboundDocumentsByENCF implements sello.InboundTx and
// sello.InboundDGIITx: locked in id order, so that two transactions on
// documents of one e-NCF take the locks in the same order.
func (t inboundTx) InboundDocumentsByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) ([]*sello.InboundDocument, error) {
	docs, err := findInboundsByENCF(ctx, t.tx, tenantID, env, issuerRNC, encf, ` ORDER BY id FOR UPDATE`)
	if err != nil {
		return nil, err
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

// InsertJobs implements sello.InboundTx.
func (t inboundTx) InsertJobs(ctx context.Context, jobs []sello.Job) error {
	return t.db.insertJobs(ctx, t.tx, jobs)
}

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
// sello.RecordInboundDGII, in one transaction holding the rows of the
// document's e-NCF.
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

// findInboundsByENCF returns every document the tenant received of
// issuerRNC and encf in env, in the order (and with the lock) tail says.
func findInboundsByENCF(ctx context.Context, q querier, tenantID string, env sello.Environment, issuerRNC, encf, tail string) ([]*sello.InboundDocument, error) {
	rows, err := q.Query(ctx, `
		SELECT `+inboundColumns+` FROM inbound_documents
		WHERE tenant_id = $1 AND environment = $2 AND issuer_rnc = $3 AND encf = $4`+tail,
		tenantID, env, issuerRNC, encf)
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

// FindInboundDocumentsByENCF implements sello.InboundStore.
func (db *DB) FindInboundDocumentsByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) ([]*sello.InboundDocument, error) {
	return findInboundsByENCF(ctx, db.pool, tenantID, env, issuerRNC, encf, ` ORDER BY received_at, id`)
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
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje`
	inboundListColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, ''::bytea, ''::bytea, approval, received_at, updated_at, signer,
		security_code, dgii_status, dgii_checked_at, dgii_codigo, dgii_mensaje`
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
			return nil, "", err
		}
		q += ` AND (received_at, id) < (` + arg(at) + `, ` + arg(id) + `)`
	}
	q += ` ORDER BY received_at DESC, id DESC LIMIT ` + arg(limit+1)
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

func scanInbound(r pgx.Row) (*sello.InboundDocument, error) {
	var d sello.InboundDocument
	var issued time.Time
	var signer []byte
	var status, mensaje *string
	var checked *time.Time
	var codigo *int32
	if err := r.Scan(&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.IssuerRNC, &d.IssuerName, &d.BuyerRNC,
		&issued, &d.Total, &d.XML, &d.Acuse, &d.Approval, &d.ReceivedAt, &d.UpdatedAt, &signer,
		&d.SecurityCode, &status, &checked, &codigo, &mensaje); err != nil {
		return nil, err
	}
	if status != nil {
		d.DGII = &sello.InboundDGII{Status: *status, Mensaje: *mensaje}
		if codigo != nil {
			c := int(*codigo)
			d.DGII.Codigo = &c
		}
		if checked != nil {
			t := utc(*checked)
			d.DGII.CheckedAt = &t
		}
	}
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

// issuerUnacceptedSQL counts the latest, up to its limit, of the tenant's
// documents of an issuer received since a time that DGII has not
// accepted, and the earliest of them.
const issuerUnacceptedSQL = `
	SELECT count(*), min(received_at) FROM (SELECT received_at FROM inbound_documents
	WHERE tenant_id = $1 AND environment = $2 AND issuer_rnc = $3 AND received_at >= $4
	  AND (dgii_status IS NULL OR dgii_status <> 'accepted')
	ORDER BY received_at DESC LIMIT $5) latest`

// IssuerQuotaReached implements sello.InboundStore: a range of the index on
// tenant, environment, issuer and receivedAt (migration 15), read from its
// end and for at most quota documents DGII has not accepted (a row's
// dgii_status is in the row; its XML is kept apart, TOAST).
func (db *DB) IssuerQuotaReached(ctx context.Context, tenantID string, env sello.Environment, issuerRNC string, since time.Time, quota int) (bool, time.Time, error) {
	if quota <= 0 {
		return false, time.Time{}, nil
	}
	var n int
	var earliest *time.Time
	err := db.pool.QueryRow(ctx, issuerUnacceptedSQL, tenantID, env, issuerRNC, since, quota).Scan(&n, &earliest)
	if err != nil {
		return false, time.Time{}, dbError(err, "count inbound documents")
	} else if n < quota || earliest == nil {
		return false, time.Time{}, nil
	}
	return true, utc(*earliest), nil
}
