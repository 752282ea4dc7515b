package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// ApproveInboundDocument implements sello.ApprovalStore: the approval on
// its inbound document and its job, in one transaction.
func (db *DB) ApproveInboundDocument(ctx context.Context, tenantID string, env sello.Environment, r sello.ApprovalRequest) (*sello.InboundApproval, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	var a *sello.InboundApproval
	err := db.inTx(ctx, func(tx querier) error {
		d, err := findInbound(ctx, tx, `id = ?`, tenantID, env, r.InboundDocumentID)
		if errors.Is(err, sql.ErrNoRows) {
			return sello.InboundDocumentNotFound(r.InboundDocumentID)
		} else if err != nil {
			return err
		}
		if a, err = sello.NewInboundApproval(d, r, db.now()); err != nil {
			return err
		}
		if err := writeApproval(ctx, tx, a); err != nil {
			return err
		}
		return db.insertJobs(ctx, tx, []sello.Job{a.Job()})
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// FindInboundApproval implements sello.ApprovalStore. Returns NOT_FOUND.
func (db *DB) FindInboundApproval(ctx context.Context, tenantID string, env sello.Environment, inboundID string) (*sello.InboundApproval, error) {
	return findApproval(ctx, db.q(), tenantID, env, inboundID)
}

// RecordApprovalOutcome implements sello.ApprovalStore: the outcome and
// its event in one transaction (the single writer is the lock).
func (db *DB) RecordApprovalOutcome(ctx context.Context, tenantID string, env sello.Environment, inboundID string, out sello.ApprovalOutcome) (*sello.InboundApproval, error) {
	var a *sello.InboundApproval
	err := db.inTx(ctx, func(tx querier) error {
		var err error
		if a, err = findApproval(ctx, tx, tenantID, env, inboundID); err != nil {
			return err
		}
		ev, err := a.Apply(out, db.now())
		if err != nil {
			return err
		}
		if err := writeApproval(ctx, tx, a); err != nil {
			return err
		}
		if ev != nil {
			return db.insertEvent(ctx, tx, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// writeApproval writes a on its inbound document.
func writeApproval(ctx context.Context, tx querier, a *sello.InboundApproval) error {
	answer, err := sqlval.JSONOrNull(a.DGII.Answer)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `
		UPDATE inbound_documents SET approval = ?, approval_id = ?, approval_reason = ?, approval_status = ?,
			approval_issuer_status = ?, approval_issuer_error = ?, approval_dgii_status = ?, approval_dgii_error = ?,
			approval_dgii_answer = ?, approval_acecf = ?, approval_requested_at = ?, approval_updated_at = ?, updated_at = ?
		WHERE tenant_id = ? AND environment = ? AND id = ?`,
		a.State, a.ID, a.Reason, a.Status, a.Issuer.Status, a.Issuer.Error, a.DGII.Status, a.DGII.Error,
		answer, a.ACECF, formatTime(a.RequestedAt), formatTime(a.UpdatedAt), formatTime(a.UpdatedAt),
		a.TenantID, a.Environment, a.InboundDocumentID)
	return dbError(err, "write approval")
}

// approvalColumns are an approval's columns of inbound_documents (the
// document's id first); approvalListColumns leave out the signed ACECF,
// which a list does not show.
const (
	approvalColumns = `id, type, encf, issuer_rnc, approval, approval_id, approval_reason, approval_status,
		approval_issuer_status, approval_issuer_error, approval_dgii_status, approval_dgii_error,
		approval_dgii_answer, approval_acecf, approval_requested_at, approval_updated_at`
	approvalListColumns = `id, type, encf, issuer_rnc, approval, approval_id, approval_reason, approval_status,
		approval_issuer_status, approval_issuer_error, approval_dgii_status, approval_dgii_error,
		approval_dgii_answer, NULL, approval_requested_at, approval_updated_at`
)

// findApproval returns the approval of the tenant's inbound document
// inboundID in env. Returns NOT_FOUND.
func findApproval(ctx context.Context, q querier, tenantID string, env sello.Environment, inboundID string) (*sello.InboundApproval, error) {
	a, err := scanApproval(q.queryRow(ctx, `
		SELECT `+approvalColumns+` FROM inbound_documents
		WHERE tenant_id = ? AND environment = ? AND id = ?`,
		tenantID, env, inboundID), tenantID, env)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.InboundDocumentNotFound(inboundID)
	} else if errors.Is(err, errNoApproval) {
		return nil, sello.InboundApprovalNotFound(inboundID)
	}
	return a, err
}

// FindApproval implements sello.ApprovalStore: the approval by its own id.
// Returns NOT_FOUND.
func (db *DB) FindApproval(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundApproval, error) {
	a, err := scanApproval(db.q().queryRow(ctx, `
		SELECT `+approvalColumns+` FROM inbound_documents
		WHERE tenant_id = ? AND environment = ? AND approval_id = ?`,
		tenantID, env, id), tenantID, env)
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, errNoApproval) {
		return nil, sello.ApprovalNotFound(id)
	}
	return a, err
}

// ListApprovals implements sello.ApprovalStore: newest requested first,
// keyset pagination on (approval_requested_at, approval_id). Returns
// INVALID_REQUEST for a malformed cursor.
func (db *DB) ListApprovals(ctx context.Context, tenantID string, env sello.Environment, f sello.ApprovalFilter) ([]*sello.InboundApproval, string, error) {
	limit := f.PageSize()
	q := `SELECT ` + approvalListColumns + ` FROM inbound_documents
		WHERE tenant_id = ? AND environment = ? AND approval_id IS NOT NULL`
	args := []any{tenantID, env}
	if f.Status != "" {
		q += ` AND approval_status = ?`
		args = append(args, f.Status)
	}
	if f.InboundDocumentID != "" {
		q += ` AND id = ?`
		args = append(args, f.InboundDocumentID)
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (approval_requested_at, approval_id) < (?, ?)`
		args = append(args, formatTime(at), id)
	}
	q += ` ORDER BY approval_requested_at DESC, approval_id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.q().query(ctx, q, args...)
	if err != nil {
		return nil, "", dbError(err, "list approvals")
	}
	defer rows.Close()
	var out []*sello.InboundApproval
	for rows.Next() {
		a, err := scanApproval(rows, tenantID, env)
		if err != nil {
			return nil, "", err
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbError(err, "list approvals")
	}
	out, next := sello.NextApprovalPage(out, limit)
	return out, next, nil
}

// errNoApproval is an inbound document without an approval.
var errNoApproval = errors.New("no approval")

// scanApproval reads the approval of a row of approvalColumns: the row's
// error (sql.ErrNoRows), or errNoApproval when its document has none.
func scanApproval(s scanner, tenantID string, env sello.Environment) (*sello.InboundApproval, error) {
	a := sello.InboundApproval{TenantID: tenantID, Environment: env}
	var id, answer, requested, updated sql.NullString
	err := s.Scan(&a.InboundDocumentID, &a.Type, &a.ENCF, &a.IssuerRNC, &a.State, &id, &a.Reason, &a.Status,
		&a.Issuer.Status, &a.Issuer.Error, &a.DGII.Status, &a.DGII.Error, &answer, &a.ACECF, &requested, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, err
	} else if err != nil {
		return nil, dbError(err, "find approval")
	}
	if !id.Valid {
		return nil, errNoApproval
	}
	a.ID = id.String
	if answer.Valid {
		if a.DGII.Answer, err = sqlval.JSONOrNil[sello.DGIIResult]([]byte(answer.String)); err != nil {
			return nil, err
		}
	}
	if a.RequestedAt, err = parseTime(requested.String); err != nil {
		return nil, err
	} else if a.UpdatedAt, err = parseTime(updated.String); err != nil {
		return nil, err
	}
	return &a, nil
}
