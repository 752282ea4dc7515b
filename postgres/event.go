package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// insertEvent writes ev to the outbox and sets its Seq.
//
// Seq is the events API's cursor, so a reader that has seen seq n must
// never later find a smaller one committed. Each insert therefore first
// takes a transaction-scoped advisory lock on the tenant and environment:
// their events get their seq in commit order. The lock is held only from
// here to the commit, which follows at once.
func insertEvent(ctx context.Context, tx pgx.Tx, ev *sello.Event) error {
	h := fnv.New64a()
	h.Write([]byte("sello events " + ev.TenantID + " " + string(ev.Environment)))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(h.Sum64())); err != nil {
		return dbError(err, "lock events")
	}
	document, err := jsonOrNull(ev.Document)
	if err != nil {
		return err
	}
	if ev.Data.Payload == nil {
		ev.Data.Payload = map[string]any{}
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return fmt.Errorf("encode event data: %w", err)
	}
	err = tx.QueryRow(ctx, `
		INSERT INTO events (id, tenant_id, environment, type, created_at, document, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		RETURNING seq`,
		ev.ID, ev.TenantID, ev.Environment, ev.Type, ev.CreatedAt, document, string(data)).Scan(&ev.Seq)
	return dbError(err, "insert event")
}

// ListEvents implements sello.EventStore. A Limit of 0 means
// sello.DefaultPageSize; it is capped at sello.MaxPageSize.
func (db *DB) ListEvents(ctx context.Context, tenantID string, env sello.Environment, f sello.EventFilter) ([]*sello.Event, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultPageSize
	}
	limit = min(limit, sello.MaxPageSize)
	q := `SELECT seq, id, tenant_id, environment, type, created_at, document, data FROM events
		WHERE tenant_id = $1 AND environment = $2 AND seq > $3`
	args := []any{tenantID, env, f.AfterSeq}
	if f.Type != "" {
		args = append(args, f.Type)
		q += ` AND type = $` + strconv.Itoa(len(args))
	}
	args = append(args, limit)
	q += ` ORDER BY seq LIMIT $` + strconv.Itoa(len(args))
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, dbError(err, "list events")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Event, error) {
		var ev sello.Event
		var document, data []byte
		if err := r.Scan(&ev.Seq, &ev.ID, &ev.TenantID, &ev.Environment, &ev.Type, &ev.CreatedAt, &document, &data); err != nil {
			return nil, err
		}
		ev.CreatedAt = utc(ev.CreatedAt)
		if document != nil {
			ev.Document = new(sello.EventDocument)
			if err := json.Unmarshal(document, ev.Document); err != nil {
				return nil, fmt.Errorf("decode event document: %w", err)
			}
		}
		if err := json.Unmarshal(data, &ev.Data); err != nil {
			return nil, fmt.Errorf("decode event data: %w", err)
		}
		return &ev, nil
	})
	return out, dbError(err, "list events")
}
