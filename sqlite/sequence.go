package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sello-do/sello"
)

// AddSequence implements sello.SequenceStore. Returns INVALID_REQUEST,
// NOT_FOUND if the tenant does not exist, or CONFLICT if the range overlaps
// one of the same tenant, environment and type.
func (db *DB) AddSequence(ctx context.Context, s *sello.Sequence) error {
	if err := s.Validate(); err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	err := db.inTx(ctx, func(tx querier) error {
		var from, to int64
		err := tx.queryRow(ctx, `
			SELECT range_from, range_to FROM sequences
			WHERE tenant_id = ? AND environment = ? AND type = ? AND range_from <= ? AND range_to >= ?
			ORDER BY range_from LIMIT 1`,
			s.TenantID, s.Environment, s.Type, s.To, s.From).Scan(&from, &to)
		if err == nil {
			return sello.Errorf(sello.CodeConflict, "Range %d–%d overlaps the registered range %d–%d of type %s in %s.",
				s.From, s.To, from, to, s.Type, s.Environment)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return dbError(err, "check sequence overlap")
		}
		var expires any
		if s.ExpiresOn != nil {
			expires = formatDate(*s.ExpiresOn)
		}
		_, err = tx.exec(ctx, `
			INSERT INTO sequences (id, tenant_id, environment, type, range_from, range_to, next, expires_on, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, s.TenantID, s.Environment, s.Type, s.From, s.To, s.From, expires, formatTime(now))
		if errorKind(err) == kindForeignKey {
			return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", s.TenantID).WithErr(err)
		}
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
	rows, err := db.q().query(ctx, `
		SELECT `+sequenceColumns+` FROM sequences
		WHERE tenant_id = ? AND environment = ?
		ORDER BY type, range_from`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find sequences")
	}
	defer rows.Close()
	var out []*sello.Sequence
	for rows.Next() {
		s, err := scanSequence(rows)
		if err != nil {
			return nil, dbError(err, "find sequences")
		}
		out = append(out, s)
	}
	return out, dbError(rows.Err(), "find sequences")
}

func scanSequence(s scanner) (*sello.Sequence, error) {
	var seq sello.Sequence
	var expires sql.NullString
	var created string
	if err := s.Scan(&seq.ID, &seq.TenantID, &seq.Environment, &seq.Type, &seq.From, &seq.To, &seq.Next, &expires, &created); err != nil {
		return nil, err
	}
	var err error
	if seq.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	if expires.Valid {
		d, err := parseDate(expires.String)
		if err != nil {
			return nil, err
		}
		seq.ExpiresOn = &d
	}
	return &seq, nil
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
	err := db.inTx(ctx, func(tx querier) error {
		cur, err := scanSequence(tx.queryRow(ctx, `
			UPDATE sequences SET `+col+` = ?
			WHERE tenant_id = ? AND environment = ? AND id = ? AND `+col+` IS NULL
			RETURNING `+sequenceColumns,
			formatTime(now), s.TenantID, s.Environment, s.ID))
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			err := tx.queryRow(ctx, `SELECT 1 FROM sequences WHERE tenant_id = ? AND environment = ? AND id = ?`,
				s.TenantID, s.Environment, s.ID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
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
