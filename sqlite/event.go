package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// insertEvent writes ev to the outbox, sets its Pos and fans it out to the
// webhook endpoints of its tenant and environment (fanOut), all with tx.
// SQLite has one writer, so seq is assigned in commit order and Pos.Tx is
// always 0.
func (db *DB) insertEvent(ctx context.Context, tx querier, ev *sello.Event) error {
	document, err := sqlval.JSONOrNull(ev.Document)
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
		ev.ID, ev.TenantID, ev.Environment, ev.Type, formatTime(ev.CreatedAt), document, string(data)).Scan(&ev.Pos.Seq)
	if err != nil {
		return dbError(err, "insert event")
	}
	return db.fanOut(ctx, tx, ev)
}

// fanOut creates ev's webhook deliveries with tx: for each active or paused
// endpoint of its tenant and environment, what sello.NewEventDelivery
// decides (the rule lives there). For a tenant without endpoints it
// costs one indexed SELECT (webhook_endpoints_tenant_env_status), prepared
// once per connection.
func (db *DB) fanOut(ctx context.Context, tx querier, ev *sello.Event) error {
	rows, err := tx.query(ctx, `
		SELECT id, status, events FROM webhook_endpoints
		WHERE tenant_id = ? AND environment = ? AND status IN ('active', 'paused')`,
		ev.TenantID, ev.Environment)
	if err != nil {
		return dbError(err, "find webhook endpoints")
	}
	var endpoints []sello.WebhookEndpoint
	for rows.Next() {
		var e sello.WebhookEndpoint
		var events string
		if err := rows.Scan(&e.ID, &e.Status, &events); err != nil {
			rows.Close()
			return dbError(err, "find webhook endpoints")
		}
		e.Events = splitEvents(events)
		endpoints = append(endpoints, e)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return dbError(err, "find webhook endpoints")
	}
	var jobs []sello.Job
	for i := range endpoints {
		d, job := sello.NewEventDelivery(ev, &endpoints[i])
		if d == nil {
			continue
		}
		if job != nil {
			jobs = append(jobs, job)
		}
		if err := insertDelivery(ctx, tx, d, nil); err != nil {
			return err
		}
	}
	return db.insertJobs(ctx, tx, jobs)
}

// splitEvents reads the events column: comma-separated, "" for all.
func splitEvents(s string) []sello.EventType {
	if s == "" {
		return nil
	}
	var out []sello.EventType
	for t := range strings.SplitSeq(s, ",") {
		out = append(out, sello.EventType(t))
	}
	return out
}

const eventColumns = `seq, id, tenant_id, environment, type, created_at, document, data`

// ListEvents implements sello.EventStore. A Limit of 0 means
// sello.DefaultPageSize; it is capped at sello.MaxPageSize.
func (db *DB) ListEvents(ctx context.Context, tenantID string, env sello.Environment, f sello.EventFilter) ([]*sello.Event, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultPageSize
	}
	limit = min(limit, sello.MaxPageSize)
	if f.After.Tx != 0 {
		// Every event here is at Tx 0: none comes after a later Tx.
		return nil, nil
	}
	q := `SELECT ` + eventColumns + ` FROM events
		WHERE tenant_id = ? AND environment = ? AND seq > ?`
	args := []any{tenantID, env, f.After.Seq}
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
		ev, err := scanEvent(rows)
		if err != nil {
			return nil, dbError(err, "list events")
		}
		out = append(out, ev)
	}
	return out, dbError(rows.Err(), "list events")
}

// FindDocumentEvents implements sello.EventStore: the tenant's events in
// env whose document snapshot is of documentID, a range of
// events_tenant_document (migration 24).
func (db *DB) FindDocumentEvents(ctx context.Context, tenantID string, env sello.Environment, documentID string) ([]*sello.Event, error) {
	rows, err := db.q().query(ctx, documentEventsSQL, tenantID, env, documentID)
	if err != nil {
		return nil, dbError(err, "find document events")
	}
	defer rows.Close()
	var out []*sello.Event
	for rows.Next() {
		ev, err := scanEvent(rows)
		if err != nil {
			return nil, dbError(err, "find document events")
		}
		out = append(out, ev)
	}
	return out, dbError(rows.Err(), "find document events")
}

// documentEventsSQL is FindDocumentEvents' query. Its snapshot's id is
// written as events_tenant_document's expression is, letter for letter:
// SQLite uses an index on an expression only for the same expression
// (TestDocumentQueriesUseIndexes).
const documentEventsSQL = `SELECT ` + eventColumns + ` FROM events
	WHERE tenant_id = ? AND environment = ? AND json_extract(document, '$.id') = ?
	ORDER BY seq`

// scanEvent reads the eventColumns of a row.
func scanEvent(s scanner) (*sello.Event, error) {
	var ev sello.Event
	var created, data string
	var document sql.NullString
	if err := s.Scan(&ev.Pos.Seq, &ev.ID, &ev.TenantID, &ev.Environment, &ev.Type, &created, &document, &data); err != nil {
		return nil, err
	}
	var err error
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
	return &ev, nil
}
