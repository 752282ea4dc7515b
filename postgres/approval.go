package postgres

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// ApproveInboundDocument implements sello.ApprovalStore: the approval on
// its inbound document, under the row lock, and its job, in one
// transaction.
func (db *DB) ApproveInboundDocument(ctx context.Context, tenantID string, env sello.Environment, r sello.ApprovalRequest) (*sello.InboundApproval, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	var a *sello.InboundApproval
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		d, err := findInbound(ctx, tx, `id = $3 FOR UPDATE`, tenantID, env, r.InboundDocumentID)
		if isNoRows(err) {
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
	return findApproval(ctx, db.pool, tenantID, env, inboundID, "")
}

// RecordApprovalOutcome implements sello.ApprovalStore: the outcome, under
// the row lock, and its event in one transaction.
func (db *DB) RecordApprovalOutcome(ctx context.Context, tenantID string, env sello.Environment, inboundID string, out sello.ApprovalOutcome) (*sello.InboundApproval, error) {
	var a *sello.InboundApproval
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if a, err = findApproval(ctx, tx, tenantID, env, inboundID, " FOR UPDATE"); err != nil {
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
func writeApproval(ctx context.Context, tx pgx.Tx, a *sello.InboundApproval) error {
	answer, err := sqlval.JSONOrNull(a.DGII.Answer)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `
		UPDATE inbound_documents SET approval = $4, approval_id = $5, approval_reason = $6, approval_status = $7,
			approval_issuer_status = $8, approval_issuer_error = $9, approval_dgii_status = $10, approval_dgii_error = $11,
			approval_acecf = $12, approval_requested_at = $13, approval_updated_at = $14, updated_at = $14,
			approval_dgii_answer = $15
		WHERE tenant_id = $1 AND environment = $2 AND id = $3`,
		a.TenantID, a.Environment, a.InboundDocumentID,
		a.State, a.ID, a.Reason, a.Status, a.Issuer.Status, a.Issuer.Error, a.DGII.Status, a.DGII.Error,
		a.ACECF, a.RequestedAt, a.UpdatedAt, answer)
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
		approval_dgii_answer, NULL::bytea, approval_requested_at, approval_updated_at`
)

// findApproval returns the approval of the tenant's inbound document
// inboundID in env; lock is "" or a locking clause. Returns NOT_FOUND.
func findApproval(ctx context.Context, q rowQuerier, tenantID string, env sello.Environment, inboundID, lock string) (*sello.InboundApproval, error) {
	a, err := scanApproval(q.QueryRow(ctx, `
		SELECT `+approvalColumns+` FROM inbound_documents
		WHERE tenant_id = $1 AND environment = $2 AND id = $3`+lock,
		tenantID, env, inboundID), tenantID, env)
	if isNoRows(err) {
		return nil, sello.InboundDocumentNotFound(inboundID)
	} else if errors.Is(err, errNoApproval) {
		return nil, sello.InboundApprovalNotFound(inboundID)
	}
	return a, err
}

// FindApproval implements sello.ApprovalStore: the approval by its own id.
// Returns NOT_FOUND.
func (db *DB) FindApproval(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.InboundApproval, error) {
	a, err := scanApproval(db.pool.QueryRow(ctx, `
		SELECT `+approvalColumns+` FROM inbound_documents
		WHERE tenant_id = $1 AND environment = $2 AND approval_id = $3`,
		tenantID, env, id), tenantID, env)
	if isNoRows(err) || errors.Is(err, errNoApproval) {
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
		WHERE tenant_id = $1 AND environment = $2 AND approval_id IS NOT NULL`
	args := []any{tenantID, env}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		q += ` AND approval_status = ` + arg(f.Status)
	}
	if f.InboundDocumentID != "" {
		q += ` AND id = ` + arg(f.InboundDocumentID)
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (approval_requested_at, approval_id) < (` + arg(at) + `, ` + arg(id) + `)`
	}
	q += ` ORDER BY approval_requested_at DESC, approval_id DESC LIMIT ` + arg(limit+1)
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, "", dbError(err, "list approvals")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.InboundApproval, error) { return scanApproval(r, tenantID, env) })
	if err != nil {
		return nil, "", err
	}
	out, next := sello.NextApprovalPage(out, limit)
	return out, next, nil
}

// errNoApproval is an inbound document without an approval.
var errNoApproval = errors.New("no approval")

// scanApproval reads the approval of a row of approvalColumns: the row's
// error (no rows), or errNoApproval when its document has none.
func scanApproval(r pgx.Row, tenantID string, env sello.Environment) (*sello.InboundApproval, error) {
	a := sello.InboundApproval{TenantID: tenantID, Environment: env}
	var id *string
	var answer []byte
	var requested, updated *time.Time
	err := r.Scan(&a.InboundDocumentID, &a.Type, &a.ENCF, &a.IssuerRNC, &a.State, &id, &a.Reason, &a.Status,
		&a.Issuer.Status, &a.Issuer.Error, &a.DGII.Status, &a.DGII.Error, &answer, &a.ACECF, &requested, &updated)
	if isNoRows(err) {
		return nil, err
	} else if err != nil {
		return nil, dbError(err, "find approval")
	}
	if id == nil || requested == nil || updated == nil {
		return nil, errNoApproval
	}
	a.ID, a.RequestedAt, a.UpdatedAt = *id, utc(*requested), utc(*updated)
	if a.DGII.Answer, err = sqlval.JSONOrNil[sello.DGIIResult](answer); err != nil {
		return nil, err
	}
	return &a, nil
}
