package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/sello-do/sello"
)

// insertEvent writes ev to the outbox and sets its Seq.
func insertEvent(ctx context.Context, tx querier, ev *sello.Event) error {
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
	err = tx.queryRow(ctx, `
		INSERT INTO events (id, tenant_id, environment, type, created_at, document, data)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		RETURNING seq`,
		ev.ID, ev.TenantID, ev.Environment, ev.Type, formatTime(ev.CreatedAt), document, string(data)).Scan(&ev.Seq)
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
		WHERE tenant_id = ? AND environment = ? AND seq > ?`
	args := []any{tenantID, env, f.AfterSeq}
	if f.Type != "" {
		q += ` AND type = ?`
		args = append(args, f.Type)
	}
	q += ` ORDER BY seq LIMIT ?`
	args = append(args, limit)
	rows, err := db.q().query(ctx, q, args...)
	if err != nil {
		return nil, dbError(err, "list events")
	}
	defer rows.Close()
	var out []*sello.Event
	for rows.Next() {
		var ev sello.Event
		var created, data string
		var document sql.NullString
		if err := rows.Scan(&ev.Seq, &ev.ID, &ev.TenantID, &ev.Environment, &ev.Type, &created, &document, &data); err != nil {
			return nil, dbError(err, "list events")
		}
		if ev.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		if document.Valid {
			ev.Document = new(sello.EventDocument)
			if err := json.Unmarshal([]byte(document.String), ev.Document); err != nil {
				return nil, fmt.Errorf("decode event document: %w", err)
			}
		}
		if err := json.Unmarshal([]byte(data), &ev.Data); err != nil {
			return nil, fmt.Errorf("decode event data: %w", err)
		}
		out = append(out, &ev)
	}
	return out, dbError(rows.Err(), "list events")
}
