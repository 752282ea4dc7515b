package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// CreateWebhookEndpoint implements sello.WebhookStore: the endpoint and its
// secrets in one transaction. Returns INVALID_REQUEST, NOT_FOUND (no such
// tenant) or CONFLICT (the id exists).
func (db *DB) CreateWebhookEndpoint(ctx context.Context, e *sello.WebhookEndpoint) error {
	if err := e.CheckNew(); err != nil {
		return err
	}
	status := cmp.Or(e.Status, sello.WebhookEndpointActive)
	var now time.Time
	err := db.inTx(ctx, func(tx querier) error {
		now = db.now()
		_, err := tx.exec(ctx, `
			INSERT INTO webhook_endpoints (id, tenant_id, environment, url, events, status, disabled_reason,
				failing_since, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
			e.ID, e.TenantID, e.Environment, e.URL, joinEvents(e.Events), status, e.DisabledReason,
			formatTime(now), formatTime(now))
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

func insertSecret(ctx context.Context, tx querier, tenantID, endpointID string, s sello.WebhookSecret, now time.Time) error {
	_, err := tx.exec(ctx, `
		INSERT INTO webhook_secrets (id, tenant_id, endpoint_id, sealed, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)`,
		s.ID, tenantID, endpointID, s.Sealed, formatTime(now), formatTimePtr(s.ExpiresAt))
	if errorKind(err) == kindUnique {
		return sello.Errorf(sello.CodeConflict, "Webhook secret %s already exists.", s.ID).WithErr(err)
	}
	return dbError(err, "insert webhook secret")
}

// joinEvents is the events column: comma-separated, "" for all.
func joinEvents(ts []sello.EventType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}

const endpointColumns = `id, tenant_id, environment, url, events, status, disabled_reason, failing_since,
	created_at, updated_at`

func scanEndpoint(s scanner) (*sello.WebhookEndpoint, error) {
	var e sello.WebhookEndpoint
	var events, created, updated string
	var failing sql.NullString
	if err := s.Scan(&e.ID, &e.TenantID, &e.Environment, &e.URL, &events, &e.Status, &e.DisabledReason, &failing,
		&created, &updated); err != nil {
		return nil, err
	}
	e.Events = splitEvents(events)
	var err error
	if e.FailingSince, err = parseTimePtr(failing); err != nil {
		return nil, err
	} else if e.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	} else if e.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &e, nil
}

// FindWebhookEndpoints implements sello.WebhookStore: oldest first, with
// their secrets.
func (db *DB) FindWebhookEndpoints(ctx context.Context, tenantID string, env sello.Environment) ([]*sello.WebhookEndpoint, error) {
	rows, err := db.q().query(ctx, `
		SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE tenant_id = ? AND environment = ? AND deleted_at IS NULL
		ORDER BY created_at, id`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find webhook endpoints")
	}
	var out []*sello.WebhookEndpoint
	byID := map[string]*sello.WebhookEndpoint{}
	for rows.Next() {
		e, err := scanEndpoint(rows)
		if err != nil {
			rows.Close()
			return nil, dbError(err, "find webhook endpoints")
		}
		out = append(out, e)
		byID[e.ID] = e
	}
	err = rows.Err()
	rows.Close()
	if err != nil || len(out) == 0 {
		return out, dbError(err, "find webhook endpoints")
	}
	rows, err = db.q().query(ctx, `
		SELECT s.endpoint_id, s.id, s.sealed, s.created_at, s.expires_at FROM webhook_secrets s
		JOIN webhook_endpoints e ON e.tenant_id = s.tenant_id AND e.id = s.endpoint_id
		WHERE s.tenant_id = ? AND e.environment = ?
		ORDER BY s.created_at DESC, s.id DESC`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find webhook secrets")
	}
	defer rows.Close()
	for rows.Next() {
		var endpointID string
		s, err := scanSecret(rows, &endpointID)
		if err != nil {
			return nil, dbError(err, "find webhook secrets")
		}
		if e := byID[endpointID]; e != nil {
			e.Secrets = append(e.Secrets, s)
		}
	}
	return out, dbError(rows.Err(), "find webhook secrets")
}

// FindWebhookEndpoint implements sello.WebhookStore. Returns NOT_FOUND,
// also for a deleted endpoint.
func (db *DB) FindWebhookEndpoint(ctx context.Context, tenantID, id string) (*sello.WebhookEndpoint, error) {
	return findEndpoint(ctx, db.q(), tenantID, id, false)
}

// FindWebhookEndpointByID implements sello.WebhookStore: the endpoint's
// tenant by its id, then the endpoint as FindWebhookEndpoint reads it.
// Returns NOT_FOUND, also for a deleted endpoint.
func (db *DB) FindWebhookEndpointByID(ctx context.Context, id string) (*sello.WebhookEndpoint, error) {
	var tenantID string
	err := db.q().queryRow(ctx, `SELECT tenant_id FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL`, id).Scan(&tenantID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.WebhookEndpointNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find webhook endpoint")
	}
	return findEndpoint(ctx, db.q(), tenantID, id, false)
}

// findEndpoint reads an endpoint and its secrets, newest first; a deleted
// one only when withDeleted (the delivery job's view). Returns NOT_FOUND.
func findEndpoint(ctx context.Context, q querier, tenantID, id string, withDeleted bool) (*sello.WebhookEndpoint, error) {
	e, err := scanEndpoint(q.queryRow(ctx, `
		SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE tenant_id = ? AND id = ? AND (? OR deleted_at IS NULL)`, tenantID, id, withDeleted))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.WebhookEndpointNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find webhook endpoint")
	}
	rows, err := q.query(ctx, `
		SELECT endpoint_id, id, sealed, created_at, expires_at FROM webhook_secrets
		WHERE tenant_id = ? AND endpoint_id = ?
		ORDER BY created_at DESC, id DESC`, tenantID, id)
	if err != nil {
		return nil, dbError(err, "find webhook secrets")
	}
	defer rows.Close()
	for rows.Next() {
		var endpointID string
		s, err := scanSecret(rows, &endpointID)
		if err != nil {
			return nil, dbError(err, "find webhook secrets")
		}
		e.Secrets = append(e.Secrets, s)
	}
	return e, dbError(rows.Err(), "find webhook secrets")
}

func scanSecret(s scanner, endpointID *string) (sello.WebhookSecret, error) {
	var ws sello.WebhookSecret
	var created string
	var expires sql.NullString
	if err := s.Scan(endpointID, &ws.ID, &ws.Sealed, &created, &expires); err != nil {
		return ws, err
	}
	var err error
	if ws.CreatedAt, err = parseTime(created); err != nil {
		return ws, err
	}
	ws.ExpiresAt, err = parseTimePtr(expires)
	return ws, err
}

// endpointStatus returns the status of one of the tenant's endpoints that
// is not deleted. Returns NOT_FOUND.
func endpointStatus(ctx context.Context, tx querier, tenantID, id string) (sello.WebhookEndpointStatus, sello.Environment, error) {
	var status sello.WebhookEndpointStatus
	var env sello.Environment
	err := tx.queryRow(ctx, `SELECT status, environment FROM webhook_endpoints WHERE tenant_id = ? AND id = ? AND deleted_at IS NULL`,
		tenantID, id).Scan(&status, &env)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", sello.WebhookEndpointNotFound(id)
	}
	return status, env, dbError(err, "find webhook endpoint")
}

// PauseWebhookEndpoint implements sello.WebhookStore. Returns NOT_FOUND or
// CONFLICT (disabled).
func (db *DB) PauseWebhookEndpoint(ctx context.Context, tenantID, id string) error {
	return db.inTx(ctx, func(tx querier) error {
		status, _, err := endpointStatus(ctx, tx, tenantID, id)
		switch {
		case err != nil:
			return err
		case status == sello.WebhookEndpointDisabled:
			return sello.WebhookEndpointIsDisabled(id)
		case status == sello.WebhookEndpointPaused:
			return nil
		}
		_, err = tx.exec(ctx, `UPDATE webhook_endpoints SET status = 'paused', updated_at = ? WHERE tenant_id = ? AND id = ?`,
			formatTime(db.now()), tenantID, id)
		return dbError(err, "pause webhook endpoint")
	})
}

// ResumeWebhookEndpoint implements sello.WebhookStore: the endpoint active
// and its held deliveries pending, each with its job, in one transaction.
// Returns NOT_FOUND.
func (db *DB) ResumeWebhookEndpoint(ctx context.Context, tenantID, id string) (int, error) {
	n := 0
	err := db.inTx(ctx, func(tx querier) error {
		status, _, err := endpointStatus(ctx, tx, tenantID, id)
		if err != nil || status == sello.WebhookEndpointActive {
			return err
		}
		now := formatTime(db.now())
		if _, err := tx.exec(ctx, `
			UPDATE webhook_endpoints SET status = 'active', disabled_reason = '', failing_since = NULL, updated_at = ?
			WHERE tenant_id = ? AND id = ?`, now, tenantID, id); err != nil {
			return dbError(err, "resume webhook endpoint")
		}
		rows, err := tx.query(ctx, `
			UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ?
			WHERE tenant_id = ? AND endpoint_id = ? AND status = 'held'
			RETURNING id`, now, now, tenantID, id)
		if err != nil {
			return dbError(err, "queue held webhook deliveries")
		}
		var jobs []sello.Job
		for rows.Next() {
			var deliveryID string
			if err := rows.Scan(&deliveryID); err != nil {
				rows.Close()
				return dbError(err, "queue held webhook deliveries")
			}
			jobs = append(jobs, sello.WebhookJob{DeliveryID: deliveryID})
		}
		err = rows.Err()
		rows.Close()
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
	expires := formatTime(now.Add(overlap))
	return db.inTx(ctx, func(tx querier) error {
		if _, _, err := endpointStatus(ctx, tx, tenantID, id); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `
			UPDATE webhook_secrets SET expires_at = ?
			WHERE tenant_id = ? AND endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?)`,
			expires, tenantID, id, expires); err != nil {
			return dbError(err, "expire webhook secrets")
		}
		if _, err := tx.exec(ctx, `
			DELETE FROM webhook_secrets WHERE tenant_id = ? AND endpoint_id = ? AND expires_at <= ?`,
			tenantID, id, formatTime(now)); err != nil {
			return dbError(err, "delete expired webhook secrets")
		}
		secret.ExpiresAt = nil
		if err := insertSecret(ctx, tx, tenantID, id, secret, now); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `UPDATE webhook_endpoints SET updated_at = ? WHERE tenant_id = ? AND id = ?`,
			formatTime(db.now()), tenantID, id)
		return dbError(err, "rotate webhook secret")
	})
}

// DisableWebhookEndpoint implements sello.WebhookStore: the endpoint
// disabled, its pending and held deliveries failed and the
// webhook_endpoint.disabled event, in one transaction. Returns NOT_FOUND.
func (db *DB) DisableWebhookEndpoint(ctx context.Context, tenantID, id, reason string, now time.Time) (bool, error) {
	now = *sello.StoredTime(&now)
	disabled := false
	err := db.inTx(ctx, func(tx querier) error {
		var env sello.Environment
		var url string
		err := tx.queryRow(ctx, `
			UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, updated_at = ?
			WHERE tenant_id = ? AND id = ? AND status <> 'disabled' AND deleted_at IS NULL
			RETURNING environment, url`,
			reason, formatTime(now), tenantID, id).Scan(&env, &url)
		if errors.Is(err, sql.ErrNoRows) {
			_, _, err := endpointStatus(ctx, tx, tenantID, id)
			return err
		} else if err != nil {
			return dbError(err, "disable webhook endpoint")
		}
		if _, err := tx.exec(ctx, `
			UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ?,
				last_error = CASE WHEN last_error = '' THEN ? ELSE last_error END
			WHERE tenant_id = ? AND endpoint_id = ? AND status IN ('pending', 'held')`,
			formatTime(now), sello.EndpointDisabledFailure(reason), tenantID, id); err != nil {
			return dbError(err, "fail webhook deliveries")
		}
		disabled = true
		return db.insertEvent(ctx, tx, sello.NewWebhookEndpointDisabledEvent(tenantID, env, id, url, reason, now))
	})
	return disabled, err
}

// DeleteWebhookEndpoint implements sello.WebhookStore: the endpoint
// disabled and marked deleted, and its pending and held deliveries failed,
// in one transaction. Returns NOT_FOUND.
func (db *DB) DeleteWebhookEndpoint(ctx context.Context, tenantID, id string, now time.Time) error {
	now = *sello.StoredTime(&now)
	return db.inTx(ctx, func(tx querier) error {
		if _, _, err := endpointStatus(ctx, tx, tenantID, id); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `
			UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, deleted_at = ?, updated_at = ?
			WHERE tenant_id = ? AND id = ?`,
			sello.WebhookEndpointDeleted, formatTime(now), formatTime(now), tenantID, id); err != nil {
			return dbError(err, "delete webhook endpoint")
		}
		_, err := tx.exec(ctx, `
			UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ?, last_error = ?
			WHERE tenant_id = ? AND endpoint_id = ? AND status IN ('pending', 'held')`,
			formatTime(now), sello.WebhookEndpointDeleted, tenantID, id)
		return dbError(err, "fail webhook deliveries")
	})
}

// insertDelivery writes d; testEvent is the synthetic event of a test
// delivery (d.EventID is then its id), nil otherwise.
func insertDelivery(ctx context.Context, tx querier, d *sello.WebhookDelivery, testEvent *sello.Event) error {
	var eventID, test any = d.EventID, nil
	if testEvent != nil {
		b, err := json.Marshal(testEvent)
		if err != nil {
			return fmt.Errorf("encode test event: %w", err)
		}
		eventID, test = nil, string(b)
	}
	_, err := tx.exec(ctx, `
		INSERT INTO webhook_deliveries (id, tenant_id, environment, endpoint_id, event_id, test_event, event_type,
			status, attempts, next_attempt_at, last_error, triggered_by, replay_of, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, '', ?, NULL, ?, ?)`,
		d.ID, d.TenantID, d.Environment, d.EndpointID, eventID, test, d.EventType,
		d.Status, formatTimePtr(d.NextAttemptAt), d.Trigger, formatTime(d.CreatedAt), formatTime(d.UpdatedAt))
	return dbError(err, "insert webhook delivery")
}

const deliveryColumns = `id, tenant_id, environment, endpoint_id, coalesce(event_id, json_extract(test_event, '$.ID')),
	event_type, status, attempts, next_attempt_at, last_error, triggered_by, coalesce(replay_of, ''),
	created_at, updated_at`

func scanDelivery(s scanner) (*sello.WebhookDelivery, error) {
	var d sello.WebhookDelivery
	var next sql.NullString
	var created, updated string
	if err := s.Scan(&d.ID, &d.TenantID, &d.Environment, &d.EndpointID, &d.EventID, &d.EventType, &d.Status,
		&d.Attempts, &next, &d.LastError, &d.Trigger, &d.ReplayOf, &created, &updated); err != nil {
		return nil, err
	}
	var err error
	if d.NextAttemptAt, err = parseTimePtr(next); err != nil {
		return nil, err
	} else if d.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	} else if d.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &d, nil
}

// FindWebhookDelivery implements sello.WebhookStore: the delivery and its
// attempts. Returns NOT_FOUND.
func (db *DB) FindWebhookDelivery(ctx context.Context, tenantID, id string) (*sello.WebhookDelivery, error) {
	d, err := scanDelivery(db.q().queryRow(ctx, `
		SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE tenant_id = ? AND id = ?`, tenantID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.WebhookDeliveryNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find webhook delivery")
	}
	rows, err := db.q().query(ctx, `
		SELECT delivery_id, n, at, request_headers, request_body, response_status, response_headers, response_body,
			latency_us, dialed_ip, error_class, error
		FROM webhook_attempts WHERE tenant_id = ? AND delivery_id = ?
		ORDER BY n`, tenantID, id)
	if err != nil {
		return nil, dbError(err, "find webhook attempts")
	}
	defer rows.Close()
	d.AttemptLog = []*sello.WebhookAttempt{}
	for rows.Next() {
		var a sello.WebhookAttempt
		var at, reqHeaders, respHeaders string
		var latency int64
		if err := rows.Scan(&a.DeliveryID, &a.N, &at, &reqHeaders, &a.RequestBody, &a.ResponseStatus, &respHeaders,
			&a.ResponseBody, &latency, &a.DialedIP, &a.ErrorClass, &a.Error); err != nil {
			return nil, dbError(err, "find webhook attempts")
		}
		if a.At, err = parseTime(at); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(reqHeaders), &a.RequestHeaders); err != nil {
			return nil, fmt.Errorf("decode request headers: %w", err)
		} else if err := json.Unmarshal([]byte(respHeaders), &a.ResponseHeaders); err != nil {
			return nil, fmt.Errorf("decode response headers: %w", err)
		}
		a.Latency = time.Duration(latency) * time.Microsecond
		a.RequestBody, a.ResponseBody = sqlval.NilIfEmpty(a.RequestBody), sqlval.NilIfEmpty(a.ResponseBody)
		d.AttemptLog = append(d.AttemptLog, &a)
	}
	return d, dbError(rows.Err(), "find webhook attempts")
}

// ListWebhookDeliveries implements sello.WebhookStore: newest first; a
// Limit of 0 means sello.DefaultPageSize, capped at sello.MaxPageSize.
func (db *DB) ListWebhookDeliveries(ctx context.Context, tenantID string, env sello.Environment, f sello.WebhookDeliveryFilter) ([]*sello.WebhookDelivery, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultPageSize
	}
	limit = min(limit, sello.MaxPageSize)
	q := `SELECT ` + deliveryColumns + ` FROM webhook_deliveries WHERE tenant_id = ? AND environment = ?`
	args := []any{tenantID, env}
	if f.EndpointID != "" {
		q += ` AND endpoint_id = ?`
		args = append(args, f.EndpointID)
	}
	if f.FailedOnly {
		q += ` AND status = 'failed'`
	}
	if !f.Since.IsZero() {
		q += ` AND created_at >= ?`
		args = append(args, formatTime(f.Since))
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, err
		}
		q += ` AND (created_at, id) < (?, ?)`
		args = append(args, formatTime(at), id)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := db.q().query(ctx, q, args...)
	if err != nil {
		return nil, dbError(err, "list webhook deliveries")
	}
	defer rows.Close()
	var out []*sello.WebhookDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, dbError(err, "list webhook deliveries")
		}
		out = append(out, d)
	}
	return out, dbError(rows.Err(), "list webhook deliveries")
}

// eventDeliveriesSQL is FindEventWebhookDeliveries' query. The tenant is
// +tenant_id, which no index serves: without it SQLite, which has no
// statistics (Sello never runs ANALYZE) and cannot tell how many ids the
// JSON array holds, walks every delivery of the tenant through
// webhook_deliveries_endpoint_status (TestDocumentQueriesUseIndexes).
const eventDeliveriesSQL = `SELECT ` + deliveryColumns + ` FROM webhook_deliveries
	WHERE event_id IN (SELECT value FROM json_each(?)) AND +tenant_id = ?
	ORDER BY created_at, id`

// FindEventWebhookDeliveries implements sello.WebhookStore: by the index
// on event_id (webhook_deliveries_event). The ids go in as one JSON array,
// so the statement is the same for any number of them.
func (db *DB) FindEventWebhookDeliveries(ctx context.Context, tenantID string, eventIDs []string) ([]*sello.WebhookDelivery, error) {
	if len(eventIDs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(eventIDs)
	if err != nil {
		return nil, fmt.Errorf("encode event ids: %w", err)
	}
	rows, err := db.q().query(ctx, eventDeliveriesSQL, string(list), tenantID)
	if err != nil {
		return nil, dbError(err, "find event webhook deliveries")
	}
	defer rows.Close()
	var out []*sello.WebhookDelivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, dbError(err, "find event webhook deliveries")
		}
		out = append(out, d)
	}
	return out, dbError(rows.Err(), "find event webhook deliveries")
}

// ReplayWebhookDelivery implements sello.WebhookStore. Returns NOT_FOUND or
// CONFLICT (endpoint disabled).
func (db *DB) ReplayWebhookDelivery(ctx context.Context, tenantID, deliveryID string, now time.Time) (*sello.WebhookDelivery, error) {
	now = *sello.StoredTime(&now)
	var d *sello.WebhookDelivery
	err := db.inTx(ctx, func(tx querier) error {
		var endpointID string
		err := tx.queryRow(ctx, `SELECT endpoint_id FROM webhook_deliveries WHERE tenant_id = ? AND id = ?`,
			tenantID, deliveryID).Scan(&endpointID)
		if errors.Is(err, sql.ErrNoRows) {
			return sello.WebhookDeliveryNotFound(deliveryID)
		} else if err != nil {
			return dbError(err, "find webhook delivery")
		}
		status, _, err := endpointStatus(ctx, tx, tenantID, endpointID)
		if err != nil {
			return err
		} else if err := sello.EndpointTakesDeliveries(endpointID, status); err != nil {
			return err
		}
		var job sello.Job
		if d, job, err = replay(ctx, tx, tenantID, deliveryID, status, now); err != nil {
			return err
		}
		if job == nil {
			return nil
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
func replay(ctx context.Context, tx querier, tenantID, deliveryID string, status sello.WebhookEndpointStatus, now time.Time) (*sello.WebhookDelivery, sello.Job, error) {
	d := &sello.WebhookDelivery{ID: sello.NewID()}
	job := d.QueueOrHold(status, now)
	d, err := scanDelivery(tx.queryRow(ctx, `
		INSERT INTO webhook_deliveries (id, tenant_id, environment, endpoint_id, event_id, test_event, event_type,
			status, attempts, next_attempt_at, last_error, triggered_by, replay_of, created_at, updated_at)
		SELECT ?, tenant_id, environment, endpoint_id, event_id, test_event, event_type,
			?, 0, ?, '', 'replay', id, ?, ?
		FROM webhook_deliveries WHERE tenant_id = ? AND id = ?
		RETURNING `+deliveryColumns,
		d.ID, d.Status, formatTimePtr(d.NextAttemptAt), formatTime(now), formatTime(now), tenantID, deliveryID))
	if errors.Is(err, sql.ErrNoRows) {
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
	err := db.inTx(ctx, func(tx querier) error {
		q := `SELECT d.id, e.status FROM webhook_deliveries d
			JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id
			WHERE d.tenant_id = ? AND d.environment = ? AND d.status = 'failed' AND d.created_at >= ?
				AND e.status <> 'disabled'
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries r WHERE r.replay_of = d.id)`
		args := []any{tenantID, env, formatTime(since)}
		if endpointID != "" {
			status, epEnv, err := endpointStatus(ctx, tx, tenantID, endpointID)
			if err != nil {
				return err
			} else if epEnv != env {
				return sello.WebhookEndpointNotFound(endpointID)
			} else if err := sello.EndpointTakesDeliveries(endpointID, status); err != nil {
				return err
			}
			q += ` AND d.endpoint_id = ?`
			args = append(args, endpointID)
		}
		q += ` ORDER BY d.created_at, d.id`
		rows, err := tx.query(ctx, q, args...)
		if err != nil {
			return dbError(err, "find failed webhook deliveries")
		}
		type failed struct {
			id     string
			status sello.WebhookEndpointStatus
		}
		var all []failed
		for rows.Next() {
			var f failed
			if err := rows.Scan(&f.id, &f.status); err != nil {
				rows.Close()
				return dbError(err, "find failed webhook deliveries")
			}
			all = append(all, f)
		}
		err = rows.Err()
		rows.Close()
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
	err := db.inTx(ctx, func(tx querier) error {
		status, env, err := endpointStatus(ctx, tx, tenantID, endpointID)
		if err != nil {
			return err
		}
		var ev *sello.Event
		var job sello.Job
		if d, ev, job, err = sello.NewTestWebhookDelivery(tenantID, env, endpointID, status, now); err != nil {
			return err
		}
		if err := insertDelivery(ctx, tx, d, ev); err != nil {
			return err
		} else if job == nil {
			return nil
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
	q := db.q()
	var eventID, testEvent sql.NullString
	d, err := scanDelivery(q.queryRow(ctx, `
		SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = ?`, deliveryID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.WebhookDeliveryNotFound(deliveryID)
	} else if err != nil {
		return nil, dbError(err, "find webhook delivery")
	}
	if err := q.queryRow(ctx, `SELECT event_id, test_event FROM webhook_deliveries WHERE tenant_id = ? AND id = ?`,
		d.TenantID, d.ID).Scan(&eventID, &testEvent); err != nil {
		return nil, dbError(err, "find webhook delivery")
	}
	w := &sello.WebhookWork{Delivery: d}
	if w.Endpoint, err = findEndpoint(ctx, q, d.TenantID, d.EndpointID, true); err != nil {
		return nil, err
	}
	if testEvent.Valid {
		w.Event = new(sello.Event)
		if err := json.Unmarshal([]byte(testEvent.String), w.Event); err != nil {
			return nil, fmt.Errorf("decode test event: %w", err)
		}
		return w, nil
	}
	w.Event, err = scanEvent(q.queryRow(ctx, `
		SELECT `+eventColumns+` FROM events WHERE tenant_id = ? AND id = ?`, d.TenantID, eventID.String))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "Event %q of webhook delivery %q not found.", eventID.String, deliveryID)
	}
	return w, dbError(err, "find event")
}

// HoldWebhookDelivery implements sello.WebhookStore. Returns NOT_FOUND.
func (db *DB) HoldWebhookDelivery(ctx context.Context, deliveryID string) (bool, error) {
	held := false
	err := db.inTx(ctx, func(tx querier) error {
		var one int
		err := tx.queryRow(ctx, `
			UPDATE webhook_deliveries SET status = 'held', next_attempt_at = NULL, updated_at = ?
			WHERE id = ? AND status = 'pending' AND EXISTS (
				SELECT 1 FROM webhook_endpoints e
				WHERE e.tenant_id = webhook_deliveries.tenant_id AND e.id = webhook_deliveries.endpoint_id
					AND e.status = 'paused')
			RETURNING 1`, formatTime(db.now()), deliveryID).Scan(&one)
		if err == nil {
			held = true
			return nil
		} else if !errors.Is(err, sql.ErrNoRows) {
			return dbError(err, "hold webhook delivery")
		}
		err = tx.queryRow(ctx, `SELECT 1 FROM webhook_deliveries WHERE id = ?`, deliveryID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return sello.WebhookDeliveryNotFound(deliveryID)
		}
		return dbError(err, "find webhook delivery")
	})
	return held, err
}

// RecordWebhookAttempt implements sello.WebhookStore: the attempt, the
// delivery and the endpoint's FailingSince in one transaction. Returns
// NOT_FOUND or INVALID_REQUEST.
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
	err = db.inTx(ctx, func(tx querier) error {
		var tenantID, endpointID string
		var status sello.WebhookDeliveryStatus
		var attempts int
		err := tx.queryRow(ctx, `SELECT tenant_id, endpoint_id, status, attempts FROM webhook_deliveries WHERE id = ?`,
			a.DeliveryID).Scan(&tenantID, &endpointID, &status, &attempts)
		if errors.Is(err, sql.ErrNoRows) {
			return sello.WebhookDeliveryNotFound(a.DeliveryID)
		} else if err != nil {
			return dbError(err, "find webhook delivery")
		}
		a.N = attempts + 1
		if _, err := tx.exec(ctx, `
			INSERT INTO webhook_attempts (delivery_id, n, tenant_id, at, request_headers, request_body, response_status,
				response_headers, response_body, latency_us, dialed_ip, error_class, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.DeliveryID, a.N, tenantID, formatTime(a.At), string(reqHeaders), sqlval.OrEmpty(a.RequestBody), a.ResponseStatus,
			string(respHeaders), sqlval.OrEmpty(a.ResponseBody), a.Latency.Microseconds(), a.DialedIP, a.ErrorClass, a.Error); err != nil {
			return dbError(err, "insert webhook attempt")
		}
		status, next, lastError := sello.ApplyWebhookOutcome(status, a, o)
		if _, err := tx.exec(ctx, `
			UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = ?
			WHERE id = ?`,
			status, a.N, formatTimePtr(next), lastError, formatTime(db.now()), a.DeliveryID); err != nil {
			return dbError(err, "update webhook delivery")
		}
		if o.Status == sello.WebhookSucceeded {
			_, err = tx.exec(ctx, `UPDATE webhook_endpoints SET failing_since = NULL WHERE tenant_id = ? AND id = ?`,
				tenantID, endpointID)
		} else {
			_, err = tx.exec(ctx, `
				UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE tenant_id = ? AND id = ?`,
				formatTime(a.At), tenantID, endpointID)
		}
		if err != nil {
			return dbError(err, "update webhook endpoint")
		}
		d, err = scanDelivery(tx.queryRow(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE id = ?`, a.DeliveryID))
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
	before := formatTime(t)
	n := 0
	err := db.inTx(ctx, func(tx querier) error {
		// The deliveries to delete: those of events older than t that no
		// pending or held delivery needs, and final test deliveries older
		// than t.
		const doomed = `
			SELECT d.id FROM webhook_deliveries d
			WHERE d.event_id IN (
				SELECT e.id FROM events e
				WHERE e.created_at < ? AND NOT EXISTS (
					SELECT 1 FROM webhook_deliveries p
					WHERE p.event_id = e.id AND p.status IN ('pending', 'held')))
			OR (d.event_id IS NULL AND d.created_at < ? AND d.status IN ('succeeded', 'failed'))`
		if _, err := tx.exec(ctx, `DELETE FROM webhook_attempts WHERE delivery_id IN (`+doomed+`)`, before, before); err != nil {
			return dbError(err, "delete webhook attempts")
		}
		if _, err := tx.exec(ctx, `DELETE FROM webhook_deliveries WHERE id IN (`+doomed+`)`, before, before); err != nil {
			return dbError(err, "delete webhook deliveries")
		}
		res, err := tx.exec(ctx, `
			DELETE FROM events WHERE created_at < ?
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)`, before)
		if err != nil {
			return dbError(err, "delete events")
		}
		deleted, err := res.RowsAffected()
		n = int(deleted)
		return err
	})
	return n, err
}
