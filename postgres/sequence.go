package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// AddSequence implements sello.SequenceStore. It locks the tenant's row so
// that two concurrent adds cannot both pass the overlap check. Returns
// INVALID_REQUEST, NOT_FOUND if the tenant does not exist, or CONFLICT if
// the range overlaps one of the same tenant, environment and type.
func (db *DB) AddSequence(ctx context.Context, s *sello.Sequence) error {
	if err := s.Validate(); err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM tenants WHERE id = $1 FOR NO KEY UPDATE`, s.TenantID).Scan(&one)
		if isNoRows(err) {
			return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", s.TenantID)
		} else if err != nil {
			return dbError(err, "lock tenant")
		}
		var from, to int64
		err = tx.QueryRow(ctx, `
			SELECT range_from, range_to FROM sequences
			WHERE tenant_id = $1 AND environment = $2 AND type = $3 AND range_from <= $4 AND range_to >= $5
			ORDER BY range_from LIMIT 1`,
			s.TenantID, s.Environment, s.Type, s.To, s.From).Scan(&from, &to)
		if err == nil {
			return sello.Errorf(sello.CodeConflict, "Range %d–%d overlaps the registered range %d–%d of type %s in %s.",
				s.From, s.To, from, to, s.Type, s.Environment)
		} else if !isNoRows(err) {
			return dbError(err, "check sequence overlap")
		}
		var expires *time.Time
		if s.ExpiresOn != nil {
			d := dateValue(*s.ExpiresOn)
			expires = &d
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO sequences (id, tenant_id, environment, type, range_from, range_to, next, expires_on, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			id, s.TenantID, s.Environment, s.Type, s.From, s.To, s.From, expires, now)
		return dbError(err, "add sequence")
	})
	if err != nil {
		return err
	}
	s.ID, s.Next, s.CreatedAt = id, s.From, now
	return nil
}

const sequenceColumns = `id, tenant_id, environment, type, range_from, range_to, next, expires_on, created_at`

// FindSequences implements sello.SequenceStore.
func (db *DB) FindSequences(ctx context.Context, tenantID string, env sello.Environment) ([]*sello.Sequence, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT `+sequenceColumns+` FROM sequences
		WHERE tenant_id = $1 AND environment = $2
		ORDER BY type, range_from`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find sequences")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Sequence, error) { return scanSequence(r) })
	return out, dbError(err, "find sequences")
}

func scanSequence(r pgx.Row) (*sello.Sequence, error) {
	var s sello.Sequence
	var expires *time.Time
	if err := r.Scan(&s.ID, &s.TenantID, &s.Environment, &s.Type, &s.From, &s.To, &s.Next, &expires, &s.CreatedAt); err != nil {
		return nil, err
	}
	s.CreatedAt = utc(s.CreatedAt)
	if expires != nil {
		d := sello.DateOf(*expires)
		s.ExpiresOn = &d
	}
	return &s, nil
}

// warnedColumns are the columns that mark each warning of a range.
var warnedColumns = map[sello.SequenceWarning]string{
	sello.SequenceWarningLow:      "low_warned_at",
	sello.SequenceWarningExpiring: "expiry_warned_at",
}

// WarnSequence implements sello.SequenceStore: in one transaction it marks
// s warned for w and writes its event from the range as stored, unless it
// was warned before (false). Returns INVALID_REQUEST or NOT_FOUND.
func (db *DB) WarnSequence(ctx context.Context, s *sello.Sequence, w sello.SequenceWarning, now time.Time) (bool, error) {
	if err := w.Check(); err != nil {
		return false, err
	}
	col := warnedColumns[w]
	now = *sello.StoredTime(&now)
	warned := false
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanSequence(tx.QueryRow(ctx, `
			UPDATE sequences SET `+col+` = $1
			WHERE tenant_id = $2 AND environment = $3 AND id = $4 AND `+col+` IS NULL
			RETURNING `+sequenceColumns,
			now, s.TenantID, s.Environment, s.ID))
		if isNoRows(err) {
			var one int
			err := tx.QueryRow(ctx, `SELECT 1 FROM sequences WHERE tenant_id = $1 AND environment = $2 AND id = $3`,
				s.TenantID, s.Environment, s.ID).Scan(&one)
			if isNoRows(err) {
				return sello.Errorf(sello.CodeNotFound, "Sequence %q not found in %s.", s.ID, s.Environment)
			}
			return dbError(err, "find sequence")
		} else if err != nil {
			return dbError(err, "warn sequence")
		}
		warned = true
		return db.insertEvent(ctx, tx, sello.NewSequenceEvent(cur, w, now))
	})
	return warned, err
}
