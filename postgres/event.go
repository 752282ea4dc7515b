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

// insertEvent writes ev to the outbox, sets its Seq and fans it out to the
// webhook endpoints of its tenant and environment (fanOut), all with tx.
//
// Seq is the events API's cursor, so a reader that has seen seq n must
// never later find a smaller one committed. Each insert therefore first
// takes the events lock of the tenant and environment (lockEvents): their
// events get their seq in commit order. The lock is held only from here to
// the commit, which follows at once.
func (db *DB) insertEvent(ctx context.Context, tx pgx.Tx, ev *sello.Event) error {
	if err := lockEvents(ctx, tx, ev.TenantID, ev.Environment); err != nil {
		return err
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
	if err != nil {
		return dbError(err, "insert event")
	}
	return db.fanOut(ctx, tx, ev)
}

// lockEvents takes the transaction-scoped advisory lock of a tenant's
// events in env. Besides ordering seq, it serializes the fan-out of events
// with the changes of an endpoint's status that decide it (pause, resume,
// disable, hold), which take the same lock: a delivery is never held for an
// endpoint resumed meanwhile, nor queued for one disabled meanwhile.
func lockEvents(ctx context.Context, tx pgx.Tx, tenantID string, env sello.Environment) error {
	h := fnv.New64a()
	h.Write([]byte("sello events " + tenantID + " " + string(env)))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(h.Sum64())); err != nil {
		return dbError(err, "lock events")
	}
	return nil
}

// fanOut creates ev's webhook deliveries with tx: one per endpoint of its
// tenant and environment that subscribes to its type, pending with a
// sello.WebhookJob when the endpoint is active, held without a job when it
// is paused. Disabled endpoints get none. For a tenant without endpoints it
// costs one indexed SELECT (webhook_endpoints_tenant_env_status), which pgx
// prepares once per connection.
func (db *DB) fanOut(ctx context.Context, tx pgx.Tx, ev *sello.Event) error {
	rows, err := tx.Query(ctx, `
		SELECT id, status, events FROM webhook_endpoints
		WHERE tenant_id = $1 AND environment = $2 AND status IN ('active', 'paused')`,
		ev.TenantID, ev.Environment)
	if err != nil {
		return dbError(err, "find webhook endpoints")
	}
	type target struct {
		id     string
		status sello.WebhookEndpointStatus
	}
	var targets []target
	for rows.Next() {
		var t target
		var events []string
		if err := rows.Scan(&t.id, &t.status, &events); err != nil {
			rows.Close()
			return dbError(err, "find webhook endpoints")
		}
		e := sello.WebhookEndpoint{Events: eventTypes(events)}
		if e.Subscribes(ev.Type) {
			targets = append(targets, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return dbError(err, "find webhook endpoints")
	}
	var jobs []sello.Job
	for _, t := range targets {
		d := &sello.WebhookDelivery{
			ID: sello.NewID(), EndpointID: t.id, TenantID: ev.TenantID, Environment: ev.Environment,
			EventID: ev.ID, EventType: ev.Type, Trigger: sello.WebhookTriggerEvent,
			CreatedAt: ev.CreatedAt, UpdatedAt: ev.CreatedAt,
		}
		if job := queueOrHold(d, t.status, ev.CreatedAt); job != nil {
			jobs = append(jobs, job)
		}
		if err := insertDelivery(ctx, tx, d, nil); err != nil {
			return err
		}
	}
	return db.insertJobs(ctx, tx, jobs)
}

func eventTypes(s []string) []sello.EventType {
	if len(s) == 0 {
		return nil
	}
	out := make([]sello.EventType, len(s))
	for i, t := range s {
		out[i] = sello.EventType(t)
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
	q := `SELECT ` + eventColumns + ` FROM events
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
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Event, error) { return scanEvent(r) })
	return out, dbError(err, "list events")
}

// scanEvent reads the eventColumns of a row.
func scanEvent(r pgx.Row) (*sello.Event, error) {
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
}
