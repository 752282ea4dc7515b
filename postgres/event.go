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

// insertEvent writes ev to the outbox, sets its Pos and fans it out to the
// webhook endpoints of its tenant and environment (fanOut), all with tx.
//
// Pos is the events API's cursor, so a reader that has seen a position must
// never later find a smaller one committed. Seq alone cannot promise that:
// concurrent transactions commit in any order. The events column tx, the id
// of the writing transaction, can: ListEvents orders by (tx, seq) and lists
// only transactions older than every one still running, which no later
// commit can precede. So writers take no common lock.
func (db *DB) insertEvent(ctx context.Context, tx pgx.Tx, ev *sello.Event) error {
	return db.insertEventAfter(ctx, tx, ev, nil)
}

// insertEventAfter is insertEvent sending first, in the same round trip,
// the pending writes (none when nil or empty).
func (db *DB) insertEventAfter(ctx context.Context, tx pgx.Tx, ev *sello.Event, pending *pendingWrites) error {
	document, data, err := eventValues(ev)
	if err != nil {
		return err
	}
	// The event and its tenant's endpoints in one round trip (fanOut).
	const q = `
		WITH e AS (` + insertEventSQL + `),
		w AS MATERIALIZED (` + eventEndpointsSQL + `)
		SELECT e.tx, e.seq, w.id, w.status, w.events FROM e LEFT JOIN w ON true ORDER BY w.id`
	args := []any{ev.ID, ev.TenantID, ev.Environment, ev.Type, ev.CreatedAt, document, data}
	var rows pgx.Rows
	var br pgx.BatchResults // the pending writes' batch, closed once rows are read
	if pending == nil || pending.b.Len() == 0 {
		rows, err = tx.Query(ctx, q, args...)
	} else {
		var then pgx.Batch
		then.Queue(q, args...)
		if br, err = pending.send(ctx, tx, &then); err != nil {
			return err
		}
		defer br.Close() // on an early return
		rows, err = br.Query()
	}
	if err != nil {
		return dbError(err, "insert event")
	}
	var endpoints []sello.WebhookEndpoint
	for rows.Next() {
		var ep eventEndpoint
		if err := rows.Scan(append([]any{&ev.Pos.Tx, &ev.Pos.Seq}, ep.dest()...)...); err != nil {
			rows.Close()
			return dbError(err, "insert event")
		}
		endpoints = ep.appendTo(endpoints)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return dbError(err, "insert event")
	}
	if br != nil {
		if err := br.Close(); err != nil {
			return dbError(err, "insert event")
		}
	}
	return db.fanOut(ctx, tx, ev, endpoints)
}

// insertEventSQL inserts an event ($1–$7: id, tenant, environment, type,
// time, document and data, as eventValues gives them) and returns its
// position.
const insertEventSQL = `INSERT INTO events (id, tenant_id, environment, type, created_at, document, data)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	RETURNING tx::text::bigint AS tx, seq`

// eventEndpointsSQL reads the endpoints an event of tenant $2 in
// environment $3 fans out to, locked FOR KEY SHARE in id order (fanOut
// says why).
const eventEndpointsSQL = `SELECT id, status, events FROM webhook_endpoints
	WHERE tenant_id = $2 AND environment = $3 AND status IN ('active', 'paused')
	ORDER BY id
	FOR KEY SHARE`

// eventValues are ev's document snapshot and data as insertEventSQL takes
// them. An event without a payload gets an empty one.
func eventValues(ev *sello.Event) (document any, data string, err error) {
	if document, err = sqlval.JSONOrNull(ev.Document); err != nil {
		return nil, "", err
	}
	if ev.Data.Payload == nil {
		ev.Data.Payload = map[string]any{}
	}
	b, err := json.Marshal(ev.Data)
	if err != nil {
		return nil, "", fmt.Errorf("encode event data: %w", err)
	}
	return document, string(b), nil
}

// eventEndpoint is a row's endpoint columns (eventEndpointsSQL's) from a
// LEFT JOIN: all NULL when the row has none.
type eventEndpoint struct {
	id, status *string
	events     []string
}

func (e *eventEndpoint) dest() []any { return []any{&e.id, &e.status, &e.events} }

// appendTo appends the endpoint to endpoints when the row has one.
func (e *eventEndpoint) appendTo(endpoints []sello.WebhookEndpoint) []sello.WebhookEndpoint {
	if e.id == nil {
		return endpoints
	}
	return append(endpoints, sello.WebhookEndpoint{ID: *e.id, Status: sello.WebhookEndpointStatus(*e.status), Events: eventTypes(e.events)})
}

// fanOut creates ev's webhook deliveries with tx: for each active or paused
// endpoint of its tenant and environment, what sello.NewEventDelivery
// decides (the rule lives there). insertEvent reads the endpoints in the
// statement that inserts the event, a transition (UpdateDocument) in the
// statement that locks its document: for a tenant without endpoints they
// cost an indexed scan (webhook_endpoints_tenant_env_status) in that
// statement, which pgx prepares once per connection, and lock nothing.
//
// The endpoints are read FOR KEY SHARE, in id order, until the commit.
// Concurrent fan-outs share the lock; every change of an endpoint's status,
// and every decision taken on it (hold, replay, test), locks the row FOR
// UPDATE first (lockEndpoint), which conflicts: the two never interleave.
// A fan-out that waits reads the status the change committed. KEY SHARE
// rather than SHARE, so that recording a delivery attempt, which locks the
// endpoint FOR NO KEY UPDATE to set failing_since, does not hold fan-outs
// up.
func (db *DB) fanOut(ctx context.Context, tx pgx.Tx, ev *sello.Event, endpoints []sello.WebhookEndpoint) error {
	ds, jobs := eventDeliveries(ev, endpoints)
	for _, d := range ds {
		if err := insertDelivery(ctx, tx, d, nil); err != nil {
			return err
		}
	}
	return db.insertJobs(ctx, tx, jobs)
}

// eventDeliveries are ev's webhook deliveries to endpoints and their jobs
// (sello.NewEventDelivery decides).
func eventDeliveries(ev *sello.Event, endpoints []sello.WebhookEndpoint) ([]*sello.WebhookDelivery, []sello.Job) {
	var ds []*sello.WebhookDelivery
	var jobs []sello.Job
	for i := range endpoints {
		d, job := sello.NewEventDelivery(ev, &endpoints[i])
		if d == nil {
			continue
		}
		ds = append(ds, d)
		if job != nil {
			jobs = append(jobs, job)
		}
	}
	return ds, jobs
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

const eventColumns = `tx::text::bigint, seq, id, tenant_id, environment, type, created_at, document, data`

// settleWait bounds how long ListEvents waits for the transactions that
// hold committed events back (see ListEvents).
const settleWait = time.Second

// ListEvents implements sello.EventStore. A Limit of 0 means
// sello.DefaultPageSize; it is capped at sello.MaxPageSize.
//
// Events come in (tx, seq) order, and only those of transactions older
// than every transaction still running, in the whole cluster (settled): a
// later commit can then never take a position before one listed. The feed
// thus lags by the longest running transaction. ListEvents answers the
// settled events after the cursor at once, up to the first that is not
// (the caller comes back for the rest from its cursor). Only when the
// first event after the cursor is held back does it wait, for up to
// settleWait: it asks the server's snapshot (awaitSettled), not the
// events, until that event is settled, then reads the page again, since
// older transactions may have committed events before it meanwhile.
func (db *DB) ListEvents(ctx context.Context, tenantID string, env sello.Environment, f sello.EventFilter) ([]*sello.Event, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultPageSize
	}
	q, args := listEventsSQL(tenantID, env, f, min(limit, sello.MaxPageSize))
	deadline := time.Now().Add(settleWait)
	for {
		events, settled, err := db.listEvents(ctx, q, args)
		if err != nil || settled > 0 || len(events) == 0 {
			return events[:settled], err
		}
		if ok, err := db.awaitSettled(ctx, events[0].Pos.Tx, deadline); !ok || err != nil {
			return nil, err
		}
	}
}

// awaitSettled waits until the transaction tx is older than every one
// running, asking the server's snapshot after delays of 1, 2, 4 … 50 ms,
// and reports whether it is before deadline (false too when ctx ends).
// Each ask reads no table.
func (db *DB) awaitSettled(ctx context.Context, tx int64, deadline time.Time) (bool, error) {
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if time.Now().Add(delay).After(deadline) {
			return false, nil
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, nil
		case <-t.C:
		}
		var xmin int64
		if err := db.pool.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&xmin); err != nil {
			return false, dbError(err, "list events")
		}
		if tx < xmin {
			return true, nil
		}
	}
}

// listEventsSQL is ListEvents' query of limit events after f.After, with
// the settled flag last (listEvents). It orders by the table's columns,
// events.tx and events.seq, a range of events_tenant_env_tx_seq (or
// events_tenant_env_type_tx_seq with a type) that stops after limit rows.
// A bare "ORDER BY tx" names the output column tx, the cast
// tx::text::bigint, which no index has: PostgreSQL then read every event
// after the cursor and sorted them for each page (for the probe of one
// event after a full page too), a cost that grew with how far behind the
// reader was (docs/benchmarks.md, issue 23). TestListQueriesUseIndexes.
func listEventsSQL(tenantID string, env sello.Environment, f sello.EventFilter, limit int) (string, []any) {
	q := `SELECT ` + eventColumns + `, tx < pg_snapshot_xmin(pg_current_snapshot()) FROM events
		WHERE tenant_id = $1 AND environment = $2 AND (tx, seq) > ($3::text::xid8, $4)`
	args := []any{tenantID, env, strconv.FormatInt(f.After.Tx, 10), f.After.Seq}
	if f.Type != "" {
		args = append(args, f.Type)
		q += ` AND type = $` + strconv.Itoa(len(args))
	}
	args = append(args, limit)
	q += ` ORDER BY events.tx, events.seq LIMIT $` + strconv.Itoa(len(args))
	return q, args
}

// FindDocumentEvents implements sello.EventStore: the tenant's events in
// env whose document snapshot is of documentID, committed or not yet
// settled alike (a page that shows them is no cursor).
func (db *DB) FindDocumentEvents(ctx context.Context, tenantID string, env sello.Environment, documentID string) ([]*sello.Event, error) {
	rows, err := db.pool.Query(ctx, documentEventsSQL, tenantID, env, documentID)
	if err != nil {
		return nil, dbError(err, "find document events")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Event, error) { return scanEvent(r) })
	return out, dbError(err, "find document events")
}

// documentEventsSQL is FindDocumentEvents' query: a range of
// events_tenant_document (migration 24), whose expression is the
// snapshot's id as written here (TestListQueriesUseIndexes).
const documentEventsSQL = `SELECT ` + eventColumns + ` FROM events
	WHERE tenant_id = $1 AND environment = $2 AND document->>'id' = $3
	ORDER BY events.tx, events.seq`

// listEvents runs the query of ListEvents and returns its events and how
// many of them, from the first, are settled: written by a transaction
// older than every one running.
func (db *DB) listEvents(ctx context.Context, q string, args []any) ([]*sello.Event, int, error) {
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, 0, dbError(err, "list events")
	}
	n, settled := 0, 0
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Event, error) {
		var ok bool
		ev, err := scanEvent(r, &ok)
		if ok && settled == n {
			settled++
		}
		n++
		return ev, err
	})
	if err != nil {
		return nil, 0, dbError(err, "list events")
	}
	return out, settled, nil
}

// scanEvent reads the eventColumns of a row.
// with extra, the destinations of the columns that follow them.
func scanEvent(r pgx.Row, extra ...any) (*sello.Event, error) {
	var ev sello.Event
	var document, data []byte
	dest := append([]any{&ev.Pos.Tx, &ev.Pos.Seq, &ev.ID, &ev.TenantID, &ev.Environment, &ev.Type, &ev.CreatedAt, &document, &data}, extra...)
	if err := r.Scan(dest...); err != nil {
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
