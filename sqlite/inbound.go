package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sello-do/sello"
)

// CreateInboundDocument implements sello.InboundStore: the document, its
// acuse and its event in one transaction, or the one already stored.
func (db *DB) CreateInboundDocument(ctx context.Context, d *sello.InboundDocument) (*sello.InboundDocument, bool, error) {
	if err := d.CheckNew(); err != nil {
		return nil, false, err
	}
	n := *d
	n.ID, n.Approval, n.ReceivedAt = sello.NewID(), sello.ApprovalPending, db.now()
	n.UpdatedAt = n.ReceivedAt
	var stored *sello.InboundDocument
	existing := false
	err := db.inTx(ctx, func(tx querier) error {
		res, err := tx.exec(ctx, `
			INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
				issue_date, total, xml, acuse, approval, received_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant_id, environment, issuer_rnc, encf) DO NOTHING`,
			n.ID, n.TenantID, n.Environment, n.Type, n.ENCF, n.IssuerRNC, n.IssuerName, n.BuyerRNC,
			formatDate(n.IssueDate), n.Total, n.XML, n.Acuse, n.Approval, formatTime(n.ReceivedAt), formatTime(n.UpdatedAt))
		if errorKind(err) == kindForeignKey {
			return &sello.Error{Code: sello.CodeNotFound, Message: "Tenant \"" + n.TenantID + "\" not found.", Err: err}
		} else if err != nil {
			return dbError(err, "create inbound document")
		}
		if added, err := res.RowsAffected(); err != nil {
			return dbError(err, "create inbound document")
		} else if added == 0 {
			existing = true
			stored, err = findInbound(ctx, tx, `issuer_rnc = ? AND encf = ?`, n.TenantID, n.Environment, n.IssuerRNC, n.ENCF)
			return err
		}
		stored = &n
		return db.insertEvent(ctx, tx, sello.NewInboundReceivedEvent(&n, n.ReceivedAt))
	})
	if err != nil {
		return nil, false, err
	}
	return stored, existing, nil
}

// FindInboundDocument implements sello.InboundStore. Returns NOT_FOUND.
func (db *DB) FindInboundDocument(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.q(), `id = ?`, tenantID, env, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.InboundDocumentNotFound(id)
	}
	return d, err
}

// FindInboundDocumentByENCF implements sello.InboundStore. Returns
// NOT_FOUND.
func (db *DB) FindInboundDocumentByENCF(ctx context.Context, tenantID string, env sello.Environment, issuerRNC, encf string) (*sello.InboundDocument, error) {
	d, err := findInbound(ctx, db.q(), `issuer_rnc = ? AND encf = ?`, tenantID, env, issuerRNC, encf)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.InboundDocumentByENCFNotFound(issuerRNC, encf)
	}
	return d, err
}

// findInbound returns the tenant's inbound document in env that where
// (over args) selects, or sql.ErrNoRows.
func findInbound(ctx context.Context, q querier, where string, tenantID string, env sello.Environment, args ...any) (*sello.InboundDocument, error) {
	var d sello.InboundDocument
	var issued, received, updated string
	err := q.queryRow(ctx, `
		SELECT id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc,
			issue_date, total, xml, acuse, approval, received_at, updated_at
		FROM inbound_documents
		WHERE tenant_id = ? AND environment = ? AND `+where,
		append([]any{tenantID, env}, args...)...).Scan(&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.IssuerRNC, &d.IssuerName, &d.BuyerRNC,
		&issued, &d.Total, &d.XML, &d.Acuse, &d.Approval, &received, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, err
	} else if err != nil {
		return nil, dbError(err, "find inbound document")
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
