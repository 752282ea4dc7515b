package postgres

import (
	"context"
	"encoding/json"
	"fmt"
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
// the same e-NCF waits for the other transaction and then inserts nothing.
func (t inboundTx) InsertInboundDocument(ctx context.Context, n *sello.InboundDocument) (bool, error) {
	signer, err := sqlval.JSONOrNull(n.Signer)
	if err != nil {
		return false, err
	}
	tag, err := t.tx.Exec(ctx, `
		INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
			issue_date, total, xml, acuse, approval, received_at, updated_at, signer)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
		ON CONFLICT (tenant_id, environment, issuer_rnc, encf) DO NOTHING`,
		n.ID, n.TenantID, n.Environment, n.Type, n.ENCF, n.IssuerRNC, n.IssuerName, n.BuyerRNC,
		dateValue(n.IssueDate), n.Total, n.XML, n.Acuse, n.Approval, n.ReceivedAt, n.UpdatedAt, signer)
	if errorKind(err) == kindForeignKey {
		return false, &sello.Error{Code: sello.CodeNotFound, Message: "Tenant \"" + n.TenantID + "\" not found.", Err: err}
	} else if err != nil {
		return false, dbError(err, "create inbound document")
	}
	return tag.RowsAffected() > 0, nil
}

// InboundDocumentByENCF implements sello.InboundTx.
func (t inboundTx) InboundDocumentByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, t.tx, `issuer_rnc = $3 AND encf = $4`, tenantID, env, issuerRNC, encf)
	if isNoRows(err) {
		return nil, sello.InboundDocumentByENCFNotFound(issuerRNC, encf)
	}
	return d, err
}

// InsertEvent implements sello.InboundTx.
func (t inboundTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}

// FindInboundDocument implements sello.InboundStore. Returns NOT_FOUND.
func (db *DB) FindInboundDocument(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.pool, `id = $3`, tenantID, env, id)
	if isNoRows(err) {
		return nil, sello.InboundDocumentNotFound(id)
	}
	return d, err
}

// FindInboundDocumentByENCF implements sello.InboundStore. Returns
// NOT_FOUND.
func (db *DB) FindInboundDocumentByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.pool, `issuer_rnc = $3 AND encf = $4`, tenantID, env, issuerRNC, encf)
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
		issue_date, total, xml, acuse, approval, received_at, updated_at, signer`
	inboundListColumns = `id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
		issue_date, total, ''::bytea, ''::bytea, approval, received_at, updated_at, signer`
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
	if err := r.Scan(&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.IssuerRNC, &d.IssuerName, &d.BuyerRNC,
		&issued, &d.Total, &d.XML, &d.Acuse, &d.Approval, &d.ReceivedAt, &d.UpdatedAt, &signer); err != nil {
		return nil, err
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

// countInboundFromIssuerSQL is CountInboundFromIssuer's query.
const countInboundFromIssuerSQL = `
	SELECT count(*), min(received_at) FROM inbound_documents
	WHERE tenant_id = $1 AND environment = $2 AND issuer_rnc = $3 AND received_at >= $4`

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
