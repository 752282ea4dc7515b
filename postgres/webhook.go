package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// Webhooks.
//
// Whether an event's delivery is pending, held or not created depends on
// its endpoint's status, which fanOut reads FOR KEY SHARE. Every change of
// that status, and every other decision taken on it (hold, replay, test),
// first locks the endpoint's row FOR UPDATE (lockEndpoint), which conflicts:
// the two never interleave, and concurrent fan-outs do not wait for each
// other. A transaction that locks an endpoint and a delivery locks the
// endpoint first; one that locks several endpoints locks them in id order
// (lockEndpoints). So none deadlock.

// CreateWebhookEndpoint implements sello.WebhookStore: the endpoint and its
// secrets in one transaction. Returns INVALID_REQUEST, NOT_FOUND (no such
// tenant) or CONFLICT (the id exists).
func (db *DB) CreateWebhookEndpoint(ctx context.Context, e *sello.WebhookEndpoint) error {
	if err := e.CheckNew(); err != nil {
		return err
	}
	status := cmp.Or(e.Status, sello.WebhookEndpointActive)
	now := db.now()
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO webhook_endpoints (id, tenant_id, environment, url, events, status, disabled_reason,
				failing_since, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $8)`,
			e.ID, e.TenantID, e.Environment, e.URL, eventStrings(e.Events), status, e.DisabledReason, now)
		switch errorKind(err) {
		case kindForeignKey:
			return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", e.TenantID).WithErr(err)
		case kindUnique:
			return sello.Errorf(sello.CodeConflict, "Webhook endpoint %s already exists.", e.ID).WithErr(err)
		}
		if err != nil {
			return dbError(err, "create webhook endpoint")
		}
		for _, s := range e.Secrets {
			if err := insertSecret(ctx, tx, e.TenantID, e.ID, s, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	e.Status, e.FailingSince, e.CreatedAt, e.UpdatedAt = status, nil, now, now
	for i := range e.Secrets {
		e.Secrets[i].CreatedAt = now
		e.Secrets[i].ExpiresAt = sello.StoredTime(e.Secrets[i].ExpiresAt)
	}
	return nil
}

func insertSecret(ctx context.Context, tx pgx.Tx, tenantID, endpointID string, s sello.WebhookSecret, now time.Time) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO webhook_secrets (id, tenant_id, endpoint_id, sealed, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		s.ID, tenantID, endpointID, s.Sealed, now, sello.StoredTime(s.ExpiresAt))
	if errorKind(err) == kindUnique {
		return sello.Errorf(sello.CodeConflict, "Webhook secret %s already exists.", s.ID).WithErr(err)
	}
	return dbError(err, "insert webhook secret")
}

// eventStrings is the events column: never NULL, empty for all.
func eventStrings(ts []sello.EventType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

const endpointColumns = `id, tenant_id, environment, url, events, status, disabled_reason, failing_since,
	created_at, updated_at`

func scanEndpoint(r pgx.Row) (*sello.WebhookEndpoint, error) {
	var e sello.WebhookEndpoint
	var events []string
	if err := r.Scan(&e.ID, &e.TenantID, &e.Environment, &e.URL, &events, &e.Status, &e.DisabledReason, &e.FailingSince,
		&e.CreatedAt, &e.UpdatedAt); err != nil {
		return nil, err
	}
	e.Events = eventTypes(events)
	e.FailingSince, e.CreatedAt, e.UpdatedAt = utcPtr(e.FailingSince), utc(e.CreatedAt), utc(e.UpdatedAt)
	return &e, nil
}

func scanSecret(r pgx.Row, endpointID *string) (sello.WebhookSecret, error) {
	var s sello.WebhookSecret
	if err := r.Scan(endpointID, &s.ID, &s.Sealed, &s.CreatedAt, &s.ExpiresAt); err != nil {
		return s, err
	}
	s.CreatedAt, s.ExpiresAt = utc(s.CreatedAt), utcPtr(s.ExpiresAt)
	return s, nil
}

// FindWebhookEndpoints implements sello.WebhookStore: oldest first, with
// their secrets.
func (db *DB) FindWebhookEndpoints(ctx context.Context, tenantID string, env sello.Environment) ([]*sello.WebhookEndpoint, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE tenant_id = $1 AND environment = $2 AND deleted_at IS NULL
		ORDER BY created_at, id`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find webhook endpoints")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.WebhookEndpoint, error) { return scanEndpoint(r) })
	if err != nil || len(out) == 0 {
		return out, dbError(err, "find webhook endpoints")
	}
	byID := map[string]*sello.WebhookEndpoint{}
	for _, e := range out {
		byID[e.ID] = e
	}
	rows, err = db.pool.Query(ctx, `
		SELECT s.endpoint_id, s.id, s.sealed, s.created_at, s.expires_at FROM webhook_secrets s
		JOIN webhook_endpoints e ON e.tenant_id = s.tenant_id AND e.id = s.endpoint_id
		WHERE s.tenant_id = $1 AND e.environment = $2
		ORDER BY s.created_at DESC, s.id DESC`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find webhook secrets")
	}
	type owned struct {
		endpointID string
		secret     sello.WebhookSecret
	}
	secrets, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (owned, error) {
		var o owned
		var err error
		o.secret, err = scanSecret(r, &o.endpointID)
		return o, err
	})
	if err != nil {
		return nil, dbError(err, "find webhook secrets")
	}
	for _, o := range secrets {
		if e := byID[o.endpointID]; e != nil {
			e.Secrets = append(e.Secrets, o.secret)
		}
	}
	return out, nil
}

// FindWebhookEndpoint implements sello.WebhookStore. Returns NOT_FOUND,
// also for a deleted endpoint.
func (db *DB) FindWebhookEndpoint(ctx context.Context, tenantID, id string) (*sello.WebhookEndpoint, error) {
	return findEndpoint(ctx, db.pool, tenantID, id, false)
}

// FindWebhookEndpointByID implements sello.WebhookStore: the endpoint's
// tenant by its id, then the endpoint as FindWebhookEndpoint reads it.
// Returns NOT_FOUND, also for a deleted endpoint.
func (db *DB) FindWebhookEndpointByID(ctx context.Context, id string) (*sello.WebhookEndpoint, error) {
	var tenantID string
	err := db.pool.QueryRow(ctx, `SELECT tenant_id FROM webhook_endpoints WHERE id = $1 AND deleted_at IS NULL`, id).Scan(&tenantID)
	if isNoRows(err) {
		return nil, sello.WebhookEndpointNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find webhook endpoint")
	}
	return findEndpoint(ctx, db.pool, tenantID, id, false)
}

// querier is what findEndpoint needs: the pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// findEndpoint reads an endpoint and its secrets, newest first; a deleted
// one only when withDeleted (the delivery job's view). Returns NOT_FOUND.
func findEndpoint(ctx context.Context, q querier, tenantID, id string, withDeleted bool) (*sello.WebhookEndpoint, error) {
	e, err := scanEndpoint(q.QueryRow(ctx, `
		SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE tenant_id = $1 AND id = $2 AND ($3 OR deleted_at IS NULL)`, tenantID, id, withDeleted))
	if isNoRows(err) {
		return nil, sello.WebhookEndpointNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find webhook endpoint")
	}
	rows, err := q.Query(ctx, `
		SELECT endpoint_id, id, sealed, created_at, expires_at FROM webhook_secrets
		WHERE tenant_id = $1 AND endpoint_id = $2
		ORDER BY created_at DESC, id DESC`, tenantID, id)
	if err != nil {
		return nil, dbError(err, "find webhook secrets")
	}
	e.Secrets, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (sello.WebhookSecret, error) {
		var endpointID string
		return scanSecret(r, &endpointID)
	})
	return e, dbError(err, "find webhook secrets")
}

// lockEndpoint locks the row of one of the tenant's endpoints that is not
// deleted FOR UPDATE and returns its status and environment. Returns
// NOT_FOUND.
func lockEndpoint(ctx context.Context, tx pgx.Tx, tenantID, id string) (sello.WebhookEndpointStatus, sello.Environment, error) {
	var status sello.WebhookEndpointStatus
	var env sello.Environment
	err := tx.QueryRow(ctx, `SELECT status, environment FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
		tenantID, id).Scan(&status, &env)
	if isNoRows(err) {
		return "", "", sello.WebhookEndpointNotFound(id)
	}
	return status, env, dbError(err, "lock webhook endpoint")
}

// lockEndpoints locks the rows of the tenant's endpoints in env, in id
// order, FOR UPDATE or, with share, FOR KEY SHARE.
func lockEndpoints(ctx context.Context, tx pgx.Tx, tenantID string, env sello.Environment, share bool) error {
	mode := "UPDATE"
	if share {
		mode = "KEY SHARE"
	}
	_, err := tx.Exec(ctx, `
		SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1 AND environment = $2
		ORDER BY id FOR `+mode, tenantID, env)
	return dbError(err, "lock webhook endpoints")
}

// PauseWebhookEndpoint implements sello.WebhookStore. Returns NOT_FOUND or
// CONFLICT (disabled).
func (db *DB) PauseWebhookEndpoint(ctx context.Context, tenantID, id string) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		status, _, err := lockEndpoint(ctx, tx, tenantID, id)
		switch {
		case err != nil:
			return err
		case status == sello.WebhookEndpointDisabled:
			return sello.WebhookEndpointIsDisabled(id)
		case status == sello.WebhookEndpointPaused:
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE webhook_endpoints SET status = 'paused', updated_at = $1 WHERE tenant_id = $2 AND id = $3`,
			db.now(), tenantID, id)
		return dbError(err, "pause webhook endpoint")
	})
}

// ResumeWebhookEndpoint implements sello.WebhookStore: the endpoint active
// and its held deliveries pending, each with its job, in one transaction.
// Returns NOT_FOUND.
func (db *DB) ResumeWebhookEndpoint(ctx context.Context, tenantID, id string) (int, error) {
	n := 0
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		status, _, err := lockEndpoint(ctx, tx, tenantID, id)
		if err != nil || status == sello.WebhookEndpointActive {
			return err
		}
		now := db.now()
		if _, err := tx.Exec(ctx, `
			UPDATE webhook_endpoints SET status = 'active', disabled_reason = '', failing_since = NULL, updated_at = $1
			WHERE tenant_id = $2 AND id = $3`, now, tenantID, id); err != nil {
			return dbError(err, "resume webhook endpoint")
		}
		rows, err := tx.Query(ctx, `
			UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $1, updated_at = $1
			WHERE tenant_id = $2 AND endpoint_id = $3 AND status = 'held'
			RETURNING id`, now, tenantID, id)
		if err != nil {
			return dbError(err, "queue held webhook deliveries")
		}
		jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sello.Job, error) {
			var deliveryID string
			err := r.Scan(&deliveryID)
			return sello.WebhookJob{DeliveryID: deliveryID}, err
		})
		if err != nil {
			return dbError(err, "queue held webhook deliveries")
		}
		n = len(jobs)
		return db.insertJobs(ctx, tx, jobs)
	})
	return n, err
}

// RotateWebhookSecret implements sello.WebhookStore. Returns NOT_FOUND or
// INVALID_REQUEST.
func (db *DB) RotateWebhookSecret(ctx context.Context, tenantID, id string, secret sello.WebhookSecret, overlap time.Duration, now time.Time) error {
	if err := sello.CheckSecretRotation(secret, overlap); err != nil {
		return err
	}
	now = *sello.StoredTime(&now)
	expires := now.Add(overlap)
	return db.inTx(ctx, func(tx pgx.Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
			tenantID, id).Scan(&one)
		if isNoRows(err) {
			return sello.WebhookEndpointNotFound(id)
		} else if err != nil {
			return dbError(err, "lock webhook endpoint")
		}
		if _, err := tx.Exec(ctx, `
			UPDATE webhook_secrets SET expires_at = $1
			WHERE tenant_id = $2 AND endpoint_id = $3 AND (expires_at IS NULL OR expires_at > $1)`,
			expires, tenantID, id); err != nil {
			return dbError(err, "expire webhook secrets")
		}
		if _, err := tx.Exec(ctx, `
			DELETE FROM webhook_secrets WHERE tenant_id = $1 AND endpoint_id = $2 AND expires_at <= $3`,
			tenantID, id, now); err != nil {
			return dbError(err, "delete expired webhook secrets")
		}
		secret.ExpiresAt = nil
		if err := insertSecret(ctx, tx, tenantID, id, secret, now); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE webhook_endpoints SET updated_at = $1 WHERE tenant_id = $2 AND id = $3`,
			db.now(), tenantID, id)
		return dbError(err, "rotate webhook secret")
	})
}

// DisableWebhookEndpoint implements sello.WebhookStore: the endpoint
// disabled, its pending and held deliveries failed and the
// webhook_endpoint.disabled event, in one transaction. Returns NOT_FOUND.
func (db *DB) DisableWebhookEndpoint(ctx context.Context, tenantID, id, reason string, now time.Time) (bool, error) {
	now = *sello.StoredTime(&now)
	disabled := false
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		// The disabled event's fan-out locks the other endpoints: lock
		// them all first, in id order, or two disables could deadlock.
		var env sello.Environment
		err := tx.QueryRow(ctx, `SELECT environment FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL`,
			tenantID, id).Scan(&env)
		if isNoRows(err) {
			return sello.WebhookEndpointNotFound(id)
		} else if err != nil {
			return dbError(err, "find webhook endpoint")
		}
		if err := lockEndpoints(ctx, tx, tenantID, env, false); err != nil {
			return err
		}
		status, _, err := lockEndpoint(ctx, tx, tenantID, id)
		if err != nil || status == sello.WebhookEndpointDisabled {
			return err
		}
		var url string
		if err := tx.QueryRow(ctx, `
			UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $1, updated_at = $2
			WHERE tenant_id = $3 AND id = $4
			RETURNING url`,
			reason, now, tenantID, id).Scan(&url); err != nil {
			return dbError(err, "disable webhook endpoint")
		}
		if _, err := tx.Exec(ctx, `
			UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = $1,
				last_error = CASE WHEN last_error = '' THEN $2 ELSE last_error END
			WHERE tenant_id = $3 AND endpoint_id = $4 AND status IN ('pending', 'held')`,
			now, sello.EndpointDisabledFailure(reason), tenantID, id); err != nil {
			return dbError(err, "fail webhook deliveries")
		}
		disabled = true
		return db.insertEvent(ctx, tx, sello.NewWebhookEndpointDisabledEvent(tenantID, env, id, url, reason, now))
	})
	return disabled, err
}

// DeleteWebhookEndpoint implements sello.WebhookStore: the endpoint
// disabled and marked deleted, and its pending and held deliveries failed,
// in one transaction. It locks the endpoint first, like every change of
// its status (see Webhooks above). Returns NOT_FOUND.
func (db *DB) DeleteWebhookEndpoint(ctx context.Context, tenantID, id string, now time.Time) error {
	now = *sello.StoredTime(&now)
	return db.inTx(ctx, func(tx pgx.Tx) error {
		if _, _, err := lockEndpoint(ctx, tx, tenantID, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $1, deleted_at = $2, updated_at = $2
			WHERE tenant_id = $3 AND id = $4`,
			sello.WebhookEndpointDeleted, now, tenantID, id); err != nil {
			return dbError(err, "delete webhook endpoint")
		}
		_, err := tx.Exec(ctx, `
			UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = $1, last_error = $2
			WHERE tenant_id = $3 AND endpoint_id = $4 AND status IN ('pending', 'held')`,
			now, sello.WebhookEndpointDeleted, tenantID, id)
		return dbError(err, "fail webhook deliveries")
	})
}

// insertDelivery writes d; testEvent is the synthetic event of a test
// delivery (d.EventID is then its id), nil otherwise.
func insertDelivery(ctx context.Context, tx pgx.Tx, d *sello.WebhookDelivery, testEvent *sello.Event) error {
	args, err := deliveryArgs(d, testEvent)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, insertDeliverySQL, args...)
	return dbError(err, "insert webhook delivery")
}

// insertDeliverySQL inserts a webhook delivery; deliveryArgs are its
// arguments.
const insertDeliverySQL = `
	INSERT INTO webhook_deliveries (id, tenant_id, environment, endpoint_id, event_id, test_event, event_type,
		status, attempts, next_attempt_at, last_error, triggered_by, replay_of, created_at, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, $9, '', $10, NULL, $11, $12)`

// deliveryArgs are insertDeliverySQL's arguments for d, of testEvent when
// it is a test delivery (nil otherwise).
func deliveryArgs(d *sello.WebhookDelivery, testEvent *sello.Event) ([]any, error) {
	var eventID, test any = d.EventID, nil
	if testEvent != nil {
		b, err := json.Marshal(testEvent)
		if err != nil {
			return nil, fmt.Errorf("encode test event: %w", err)
		}
		eventID, test = nil, string(b)
	}
	return []any{d.ID, d.TenantID, d.Environment, d.EndpointID, eventID, test, d.EventType,
		d.Status, d.NextAttemptAt, d.Trigger, d.CreatedAt, d.UpdatedAt}, nil
}

const deliveryColumns = `id, tenant_id, environment, endpoint_id, coalesce(event_id, test_event->>'ID'),
	event_type, status, attempts, next_attempt_at, last_error, triggered_by, coalesce(replay_of, ''),
	created_at, updated_at`

func scanDelivery(r pgx.Row) (*sello.WebhookDelivery, error) {
	var d sello.WebhookDelivery
	if err := r.Scan(&d.ID, &d.TenantID, &d.Environment, &d.EndpointID, &d.EventID, &d.EventType, &d.Status,
		&d.Attempts, &d.NextAttemptAt, &d.LastError, &d.Trigger, &d.ReplayOf, &d.CreatedAt, &d.UpdatedAt); err != nil {
		return nil, err
	}
	d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = utcPtr(d.NextAttemptAt), utc(d.CreatedAt), utc(d.UpdatedAt)
	return &d, nil
}

// FindWebhookDelivery implements sello.WebhookStore: the delivery and its
// attempts. Returns NOT_FOUND.
func (db *DB) FindWebhookDelivery(ctx context.Context, tenantID, id string) (*sello.WebhookDelivery, error) {
	d, err := scanDelivery(db.pool.QueryRow(ctx, `
		SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2`, tenantID, id))
	if isNoRows(err) {
		return nil, sello.WebhookDeliveryNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find webhook delivery")
	}
	rows, err := db.pool.Query(ctx, `
		SELECT delivery_id, n, at, request_headers, request_body, response_status, response_headers, response_body,
			latency_us, dialed_ip, error_class, error
		FROM webhook_attempts WHERE tenant_id = $1 AND delivery_id = $2
		ORDER BY n`, tenantID, id)
	if err != nil {
		return nil, dbError(err, "find webhook attempts")
	}
	d.AttemptLog, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.WebhookAttempt, error) {
		var a sello.WebhookAttempt
		var reqHeaders, respHeaders []byte
		var latency int64
		if err := r.Scan(&a.DeliveryID, &a.N, &a.At, &reqHeaders, &a.RequestBody, &a.ResponseStatus, &respHeaders,
			&a.ResponseBody, &latency, &a.DialedIP, &a.ErrorClass, &a.Error); err != nil {
			return nil, err
		}
		a.At = utc(a.At)
		if err := json.Unmarshal(reqHeaders, &a.RequestHeaders); err != nil {
			return nil, fmt.Errorf("decode request headers: %w", err)
		} else if err := json.Unmarshal(respHeaders, &a.ResponseHeaders); err != nil {
			return nil, fmt.Errorf("decode response headers: %w", err)
		}
		a.Latency = time.Duration(latency) * time.Microsecond
		a.RequestBody, a.ResponseBody = sqlval.NilIfEmpty(a.RequestBody), sqlval.NilIfEmpty(a.ResponseBody)
		return &a, nil
	})
	if err != nil {
		return nil, dbError(err, "find webhook attempts")
	}
	if d.AttemptLog == nil {
		d.AttemptLog = []*sello.WebhookAttempt{}
	}
	return d, nil
}

// ListWebhookDeliveries implements sello.WebhookStore: newest first; a
// Limit of 0 means sello.DefaultPageSize, capped at sello.MaxPageSize.
func (db *DB) ListWebhookDeliveries(ctx context.Context, tenantID string, env sello.Environment, f sello.WebhookDeliveryFilter) ([]*sello.WebhookDelivery, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultPageSize
	}
	limit = min(limit, sello.MaxPageSize)
	q := `SELECT ` + deliveryColumns + ` FROM webhook_deliveries WHERE tenant_id = $1 AND environment = $2`
	args := []any{tenantID, env}
	if f.EndpointID != "" {
		args = append(args, f.EndpointID)
		q += ` AND endpoint_id = $` + strconv.Itoa(len(args))
	}
	if f.FailedOnly {
		q += ` AND status = 'failed'`
	}
	if !f.Since.IsZero() {
		args = append(args, f.Since)
		q += ` AND created_at >= $` + strconv.Itoa(len(args))
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, err
		}
		args = append(args, at, id)
		q += ` AND (created_at, id) < ($` + strconv.Itoa(len(args)-1) + `, $` + strconv.Itoa(len(args)) + `)`
	}
	args = append(args, limit)
	q += ` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(len(args))
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, dbError(err, "list webhook deliveries")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.WebhookDelivery, error) { return scanDelivery(r) })
	return out, dbError(err, "list webhook deliveries")
}

// FindEventWebhookDeliveries implements sello.WebhookStore: by the index
// on event_id (webhook_deliveries_event).
func (db *DB) FindEventWebhookDeliveries(ctx context.Context, tenantID string, eventIDs []string) ([]*sello.WebhookDelivery, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE event_id = ANY($1) AND tenant_id = $2
		ORDER BY created_at, id`, eventIDs, tenantID)
	if err != nil {
		return nil, dbError(err, "find event webhook deliveries")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.WebhookDelivery, error) { return scanDelivery(r) })
	return out, dbError(err, "find event webhook deliveries")
}

// ReplayWebhookDelivery implements sello.WebhookStore. Returns NOT_FOUND or
// CONFLICT (endpoint disabled).
func (db *DB) ReplayWebhookDelivery(ctx context.Context, tenantID, deliveryID string, now time.Time) (*sello.WebhookDelivery, error) {
	now = *sello.StoredTime(&now)
	var d *sello.WebhookDelivery
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var endpointID string
		err := tx.QueryRow(ctx, `SELECT endpoint_id FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2`,
			tenantID, deliveryID).Scan(&endpointID)
		if isNoRows(err) {
			return sello.WebhookDeliveryNotFound(deliveryID)
		} else if err != nil {
			return dbError(err, "find webhook delivery")
		}
		status, _, err := lockEndpoint(ctx, tx, tenantID, endpointID)
		if err != nil {
			return err
		} else if err := sello.EndpointTakesDeliveries(endpointID, status); err != nil {
			return err
		}
		var job sello.Job
		if d, job, err = replay(ctx, tx, tenantID, deliveryID, status, now); err != nil || job == nil {
			return err
		}
		return db.insertJobs(ctx, tx, []sello.Job{job})
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// replay inserts the replay of one of the tenant's deliveries, whose
// endpoint is in status, and returns it with its job (nil when held).
func replay(ctx context.Context, tx pgx.Tx, tenantID, deliveryID string, status sello.WebhookEndpointStatus, now time.Time) (*sello.WebhookDelivery, sello.Job, error) {
	d := &sello.WebhookDelivery{ID: sello.NewID()}
	job := d.QueueOrHold(status, now)
	d, err := scanDelivery(tx.QueryRow(ctx, `
		INSERT INTO webhook_deliveries (id, tenant_id, environment, endpoint_id, event_id, test_event, event_type,
			status, attempts, next_attempt_at, last_error, triggered_by, replay_of, created_at, updated_at)
		SELECT $1, tenant_id, environment, endpoint_id, event_id, test_event, event_type,
			$2, 0, $3, '', 'replay', id, $4, $4
		FROM webhook_deliveries WHERE tenant_id = $5 AND id = $6
		RETURNING `+deliveryColumns,
		d.ID, d.Status, d.NextAttemptAt, now, tenantID, deliveryID))
	if isNoRows(err) {
		return nil, nil, sello.WebhookDeliveryNotFound(deliveryID)
	} else if err != nil {
		return nil, nil, dbError(err, "replay webhook delivery")
	}
	return d, job, nil
}

// ReplayFailedWebhookDeliveries implements sello.WebhookStore: one
// transaction. Returns NOT_FOUND or CONFLICT for endpointID.
func (db *DB) ReplayFailedWebhookDeliveries(ctx context.Context, tenantID string, env sello.Environment, endpointID string, since, now time.Time) (int, error) {
	now = *sello.StoredTime(&now)
	n := 0
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		q := `SELECT d.id, e.status FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
			WHERE d.tenant_id = $1 AND d.environment = $2 AND d.status = 'failed' AND d.created_at >= $3
				AND e.status <> 'disabled'
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries r WHERE r.replay_of = d.id)`
		args := []any{tenantID, env, since}
		if endpointID != "" {
			status, epEnv, err := lockEndpoint(ctx, tx, tenantID, endpointID)
			if err != nil {
				return err
			} else if epEnv != env {
				return sello.WebhookEndpointNotFound(endpointID)
			} else if err := sello.EndpointTakesDeliveries(endpointID, status); err != nil {
				return err
			}
			args = append(args, endpointID)
			q += ` AND d.endpoint_id = $4`
		} else if err := lockEndpoints(ctx, tx, tenantID, env, true); err != nil {
			// KEY SHARE suffices: it conflicts with the FOR UPDATE of
			// every change of an endpoint's status.
			return err
		}
		q += ` ORDER BY d.created_at, d.id`
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return dbError(err, "find failed webhook deliveries")
		}
		type failed struct {
			id     string
			status sello.WebhookEndpointStatus
		}
		all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (failed, error) {
			var f failed
			err := r.Scan(&f.id, &f.status)
			return f, err
		})
		if err != nil {
			return dbError(err, "find failed webhook deliveries")
		}
		var jobs []sello.Job
		for _, f := range all {
			_, job, err := replay(ctx, tx, tenantID, f.id, f.status, now)
			if err != nil {
				return err
			} else if job != nil {
				jobs = append(jobs, job)
			}
		}
		n = len(all)
		return db.insertJobs(ctx, tx, jobs)
	})
	return n, err
}

// CreateTestWebhookDelivery implements sello.WebhookStore. Returns
// NOT_FOUND or CONFLICT (endpoint disabled).
func (db *DB) CreateTestWebhookDelivery(ctx context.Context, tenantID, endpointID string, now time.Time) (*sello.WebhookDelivery, error) {
	now = *sello.StoredTime(&now)
	var d *sello.WebhookDelivery
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		status, env, err := lockEndpoint(ctx, tx, tenantID, endpointID)
		if err != nil {
			return err
		}
		var ev *sello.Event
		var job sello.Job
		if d, ev, job, err = sello.NewTestWebhookDelivery(tenantID, env, endpointID, status, now); err != nil {
			return err
		}
		if err := insertDelivery(ctx, tx, d, ev); err != nil || job == nil {
			return err
		}
		return db.insertJobs(ctx, tx, []sello.Job{job})
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// FindWebhookWork implements sello.WebhookStore. Returns NOT_FOUND.
func (db *DB) FindWebhookWork(ctx context.Context, deliveryID string) (*sello.WebhookWork, error) {
	var eventID *string
	var testEvent []byte
	d, err := scanDelivery(db.pool.QueryRow(ctx, `
		SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = $1`, deliveryID))
	if isNoRows(err) {
		return nil, sello.WebhookDeliveryNotFound(deliveryID)
	} else if err != nil {
		return nil, dbError(err, "find webhook delivery")
	}
	if err := db.pool.QueryRow(ctx, `SELECT event_id, test_event FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2`,
		d.TenantID, d.ID).Scan(&eventID, &testEvent); err != nil {
		return nil, dbError(err, "find webhook delivery")
	}
	w := &sello.WebhookWork{Delivery: d}
	if w.Endpoint, err = findEndpoint(ctx, db.pool, d.TenantID, d.EndpointID, true); err != nil {
		return nil, err
	}
	if eventID == nil {
		w.Event = new(sello.Event)
		if err := json.Unmarshal(testEvent, w.Event); err != nil {
			return nil, fmt.Errorf("decode test event: %w", err)
		}
		w.Event.CreatedAt = w.Event.CreatedAt.UTC()
		return w, nil
	}
	w.Event, err = scanEvent(db.pool.QueryRow(ctx, `
		SELECT `+eventColumns+` FROM events WHERE tenant_id = $1 AND id = $2`, d.TenantID, *eventID))
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "Event %q of webhook delivery %q not found.", *eventID, deliveryID)
	}
	return w, dbError(err, "find event")
}

// HoldWebhookDelivery implements sello.WebhookStore. Returns NOT_FOUND.
func (db *DB) HoldWebhookDelivery(ctx context.Context, deliveryID string) (bool, error) {
	held := false
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var tenantID, endpointID string
		err := tx.QueryRow(ctx, `SELECT tenant_id, endpoint_id FROM webhook_deliveries WHERE id = $1`,
			deliveryID).Scan(&tenantID, &endpointID)
		if isNoRows(err) {
			return sello.WebhookDeliveryNotFound(deliveryID)
		} else if err != nil {
			return dbError(err, "find webhook delivery")
		}
		if _, _, err := lockEndpoint(ctx, tx, tenantID, endpointID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `
			UPDATE webhook_deliveries d SET status = 'held', next_attempt_at = NULL, updated_at = $1
			WHERE d.id = $2 AND d.status = 'pending' AND EXISTS (
				SELECT 1 FROM webhook_endpoints e
				WHERE e.tenant_id = d.tenant_id AND e.id = d.endpoint_id AND e.status = 'paused')`,
			db.now(), deliveryID)
		held = tag.RowsAffected() == 1
		return dbError(err, "hold webhook delivery")
	})
	return held, err
}

// RecordWebhookAttempt implements sello.WebhookStore: the attempt, the
// delivery and the endpoint's FailingSince in one transaction, with the
// endpoint's and the delivery's rows locked. Returns NOT_FOUND or
// INVALID_REQUEST.
func (db *DB) RecordWebhookAttempt(ctx context.Context, a *sello.WebhookAttempt, o sello.WebhookOutcome) (*sello.WebhookDelivery, error) {
	if err := sello.CheckWebhookOutcome(o); err != nil {
		return nil, err
	}
	reqHeaders, err := json.Marshal(sqlval.HeadersOrEmpty(a.RequestHeaders))
	if err != nil {
		return nil, fmt.Errorf("encode request headers: %w", err)
	}
	respHeaders, err := json.Marshal(sqlval.HeadersOrEmpty(a.ResponseHeaders))
	if err != nil {
		return nil, fmt.Errorf("encode response headers: %w", err)
	}
	a.ResponseBody = sello.TruncateWebhookBody(a.ResponseBody)
	a.At = *sello.StoredTime(&a.At)
	a.Latency = a.Latency.Truncate(time.Microsecond)
	var d *sello.WebhookDelivery
	err = db.inTx(ctx, func(tx pgx.Tx) error {
		// Lock the endpoint, then the delivery: the order of every
		// transaction that locks both (disable, resume), so none deadlock.
		var tenantID, endpointID string
		err := tx.QueryRow(ctx, `SELECT tenant_id, endpoint_id FROM webhook_deliveries WHERE id = $1`,
			a.DeliveryID).Scan(&tenantID, &endpointID)
		if isNoRows(err) {
			return sello.WebhookDeliveryNotFound(a.DeliveryID)
		} else if err != nil {
			return dbError(err, "find webhook delivery")
		}
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 FOR NO KEY UPDATE`,
			tenantID, endpointID).Scan(&one); err != nil {
			return dbError(err, "lock webhook endpoint")
		}
		var status sello.WebhookDeliveryStatus
		var attempts int
		if err := tx.QueryRow(ctx, `SELECT status, attempts FROM webhook_deliveries WHERE id = $1 FOR NO KEY UPDATE`,
			a.DeliveryID).Scan(&status, &attempts); err != nil {
			return dbError(err, "lock webhook delivery")
		}
		a.N = attempts + 1
		if _, err := tx.Exec(ctx, `
			INSERT INTO webhook_attempts (delivery_id, n, tenant_id, at, request_headers, request_body, response_status,
				response_headers, response_body, latency_us, dialed_ip, error_class, error)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			a.DeliveryID, a.N, tenantID, a.At, string(reqHeaders), sqlval.OrEmpty(a.RequestBody), a.ResponseStatus,
			string(respHeaders), sqlval.OrEmpty(a.ResponseBody), a.Latency.Microseconds(), a.DialedIP, a.ErrorClass, a.Error); err != nil {
			return dbError(err, "insert webhook attempt")
		}
		status, next, lastError := sello.ApplyWebhookOutcome(status, a, o)
		if _, err := tx.Exec(ctx, `
			UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, last_error = $4, updated_at = $5
			WHERE id = $6`,
			status, a.N, next, lastError, db.now(), a.DeliveryID); err != nil {
			return dbError(err, "update webhook delivery")
		}
		if o.Status == sello.WebhookSucceeded {
			_, err = tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = NULL WHERE tenant_id = $1 AND id = $2`,
				tenantID, endpointID)
		} else {
			_, err = tx.Exec(ctx, `
				UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $1) WHERE tenant_id = $2 AND id = $3`,
				a.At, tenantID, endpointID)
		}
		if err != nil {
			return dbError(err, "update webhook endpoint")
		}
		d, err = scanDelivery(tx.QueryRow(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = $1`, a.DeliveryID))
		return dbError(err, "find webhook delivery")
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DeleteEventsBefore implements sello.WebhookStore: one transaction, which
// scans the events older than t.
func (db *DB) DeleteEventsBefore(ctx context.Context, t time.Time) (int, error) {
	n := 0
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		// The deliveries to delete: those of events older than t that no
		// pending or held delivery needs, and final test deliveries older
		// than t.
		const doomed = `
			SELECT d.id FROM webhook_deliveries d
			WHERE d.event_id IN (
				SELECT e.id FROM events e
				WHERE e.created_at < $1 AND NOT EXISTS (
					SELECT 1 FROM webhook_deliveries p
					WHERE p.event_id = e.id AND p.status IN ('pending', 'held')))
			OR (d.event_id IS NULL AND d.created_at < $1 AND d.status IN ('succeeded', 'failed'))`
		if _, err := tx.Exec(ctx, `DELETE FROM webhook_attempts WHERE delivery_id IN (`+doomed+`)`, t); err != nil {
			return dbError(err, "delete webhook attempts")
		}
		if _, err := tx.Exec(ctx, `DELETE FROM webhook_deliveries WHERE id IN (`+doomed+`)`, t); err != nil {
			return dbError(err, "delete webhook deliveries")
		}
		tag, err := tx.Exec(ctx, `
			DELETE FROM events WHERE created_at < $1
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)`, t)
		if err != nil {
			return dbError(err, "delete events")
		}
		n = int(tag.RowsAffected())
		return nil
	})
	return n, err
}
