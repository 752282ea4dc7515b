package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// FindDocumentByID implements sello.LifecycleStore. Returns NOT_FOUND.
func (db *DB) FindDocumentByID(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.Document, error) {
	doc, err := scanDocument(db.pool.QueryRow(ctx, `
		SELECT `+documentColumns+` FROM documents
		WHERE tenant_id = $1 AND environment = $2 AND id = $3`, tenantID, env, id))
	if isNoRows(err) {
		return nil, sello.DocumentIDNotFound(id, env)
	}
	return doc, dbError(err, "find document by id")
}

// UpdateDocument implements sello.LifecycleStore: in one transaction it
// locks the document's row, checks ch.From, sets the change's fields,
// writes a status-history row, the jobs and the event, and returns the
// document as it is after. Returns INVALID_REQUEST for an unknown status,
// NOT_FOUND, or CONFLICT when the document's status is not one of ch.From.
//
// It costs two round trips to the database (three when it inserts jobs),
// pipelined with pgx's batches: BEGIN with the statement that locks the
// document (and, when the change writes an event, reads and locks its
// webhook endpoints, lockDocumentEndpointsSQL); then, once the change is
// checked and applied here, the update with its history row, the event,
// its webhook deliveries and COMMIT. An error in the second batch makes
// PostgreSQL skip the rest of it, COMMIT included: the transaction is
// rolled back. River's job inserts, which need their own round trip, go
// between the two.
func (db *DB) UpdateDocument(ctx context.Context, tenantID string, env sello.Environment, id string, ch sello.DocumentChange) (*sello.Document, error) {
	if err := ch.Check(); err != nil {
		return nil, err
	}
	c, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, dbError(err, "begin")
	}
	defer c.Release()
	conn := c.Conn()

	// Round trip 1: BEGIN and the locking read.
	lock := &pgx.Batch{}
	lock.BeginTx(pgx.TxOptions{})
	lockSQL := lockDocumentSQL
	if ch.EventType != "" {
		lockSQL = lockDocumentEndpointsSQL
	}
	lock.Queue(lockSQL, id, tenantID, env)
	br := conn.SendBatch(ctx, lock)
	tx := br.Tx()
	defer func() {
		// Rolled back unless the second batch committed (or the
		// connection is gone, which the pool then discards).
		if conn.PgConn().TxStatus() != 'I' {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	doc, endpoints, err := readLocked(br, ch.EventType != "")
	if cerr := br.Close(); err == nil && cerr != nil {
		err = dbError(cerr, "lock document")
	}
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, sello.DocumentIDNotFound(id, env)
	}
	if !ch.Allows(doc.Status) || !ch.AllowsDelivery(doc.Delivery.Status) {
		return nil, ch.Refusal(doc)
	}
	now := db.now() // under the row lock, so a document's times follow its changes
	ch.Apply(doc, now)
	dgii, err := sqlval.JSONOrNull(doc.DGII)
	if err != nil {
		return nil, err
	}
	ev := ch.Event(doc, now)
	var deliveries []*sello.WebhookDelivery
	jobs := ch.Jobs
	if ev != nil {
		var fanOutJobs []sello.Job
		deliveries, fanOutJobs = eventDeliveries(ev, endpoints)
		jobs = append(slices.Clip(jobs), fanOutJobs...)
	}
	if err := db.insertJobs(ctx, tx, jobs); err != nil {
		return nil, err
	}

	// Round trip 2: the writes and COMMIT.
	b := &pgx.Batch{}
	// The row and its status history in one statement.
	b.Queue(`
		WITH d AS (
			UPDATE documents SET status = $1, track_id = $2, security_code = $3, signed_at = $4, qr_url = $5, dgii = $6,
				failure_reason = $7, updated_at = $8, signed_xml = coalesce($9, signed_xml), rfce_xml = coalesce($10, rfce_xml),
				delivery_status = $11, delivery_code = $12, delivery_reason = $13, arecf_xml = coalesce($14, arecf_xml),
				contingency = $18
			WHERE tenant_id = $15 AND environment = $16 AND id = $17
			RETURNING id, tenant_id, status)
		INSERT INTO document_status_history (document_id, tenant_id, status, at, reason)
		SELECT id, tenant_id, status, $19::timestamptz, $20::text FROM d`,
		doc.Status, doc.TrackID, doc.SecurityCode, doc.SignedAt, doc.QRURL, dgii,
		doc.FailureReason, doc.UpdatedAt, sqlval.BlobOrNull(ch.SignedXML), sqlval.BlobOrNull(ch.RFCEXML),
		doc.Delivery.Status, doc.Delivery.Code, doc.Delivery.Reason, sqlval.BlobOrNull(ch.ARECF),
		tenantID, env, id, doc.Contingency, now, ch.Reason)
	if ev != nil {
		document, data, err := eventValues(ev)
		if err != nil {
			return nil, err
		}
		b.Queue(insertEventSQL, ev.ID, ev.TenantID, ev.Environment, ev.Type, ev.CreatedAt, document, data)
		for _, d := range deliveries {
			args, err := deliveryArgs(d, nil)
			if err != nil {
				return nil, err
			}
			b.Queue(insertDeliverySQL, args...)
		}
	}
	b.Queue("commit")
	start := time.Now()
	br = tx.SendBatch(ctx, b)
	err = readWrites(br, ev, len(deliveries))
	if cerr := br.Close(); err == nil && cerr != nil {
		err = dbError(cerr, "update document")
	}
	if err != nil {
		return nil, err
	}
	db.observeCommit(1, start)
	return doc, nil
}

// lockDocumentSQL reads the summaryColumns of document $1 of tenant $2 in
// environment $3 (the order of eventEndpointsSQL's parameters) and locks
// its row.
const lockDocumentSQL = `SELECT ` + summaryColumns + ` FROM documents
	WHERE tenant_id = $2 AND environment = $3 AND id = $1 FOR UPDATE`

// lockDocumentEndpointsSQL is lockDocumentSQL that also reads and locks
// the webhook endpoints an event of the document fans out to
// (eventEndpointsSQL): the document's columns with each endpoint's, in
// the endpoints' id order, or once with NULLs when there is none.
const lockDocumentEndpointsSQL = `WITH w(endpoint_id, endpoint_status, endpoint_events) AS MATERIALIZED (` + eventEndpointsSQL + `)
	SELECT ` + summaryColumns + `, w.endpoint_id, w.endpoint_status, w.endpoint_events
	FROM documents LEFT JOIN w ON true
	WHERE tenant_id = $2 AND environment = $3 AND id = $1
	ORDER BY w.endpoint_id
	FOR UPDATE OF documents`

// readLocked reads the results of UpdateDocument's first batch: BEGIN,
// then the document (nil when there is none) and, withEndpoints, its
// webhook endpoints.
func readLocked(br pgx.BatchResults, withEndpoints bool) (*sello.Document, []sello.WebhookEndpoint, error) {
	if _, err := br.Exec(); err != nil {
		return nil, nil, dbError(err, "begin")
	}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, dbError(err, "lock document")
	}
	defer rows.Close()
	var doc *sello.Document
	var endpoints []sello.WebhookEndpoint
	for rows.Next() {
		var ep eventEndpoint
		var extra []any
		if withEndpoints {
			extra = ep.dest()
		}
		d, err := scanDocument(rows, extra...)
		if err != nil {
			return nil, nil, dbError(err, "lock document")
		}
		if doc == nil {
			doc = d
		}
		endpoints = ep.appendTo(endpoints)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, dbError(err, "lock document")
	}
	return doc, endpoints, nil
}

// readWrites reads the results of UpdateDocument's second batch: the
// update, ev's insert (setting its Pos) and its deliveries' when ev is
// not nil, and COMMIT.
func readWrites(br pgx.BatchResults, ev *sello.Event, deliveries int) error {
	if _, err := br.Exec(); err != nil {
		return dbError(err, "update document")
	}
	if ev != nil {
		if err := br.QueryRow().Scan(&ev.Pos.Tx, &ev.Pos.Seq); err != nil {
			return dbError(err, "insert event")
		}
		for range deliveries {
			if _, err := br.Exec(); err != nil {
				return dbError(err, "insert webhook delivery")
			}
		}
	}
	tag, err := br.Exec()
	if err != nil {
		return dbError(err, "commit")
	}
	if tag.String() != "COMMIT" { // ROLLBACK: the transaction had failed
		return dbError(pgx.ErrTxCommitRollback, "commit")
	}
	return nil
}

// QueueJobs implements sello.LifecycleStore: js in one transaction.
func (db *DB) QueueJobs(ctx context.Context, js ...sello.Job) error {
	return db.inTx(ctx, func(tx pgx.Tx) error { return db.insertJobs(ctx, tx, js) })
}

// FindDocumentXML implements sello.LifecycleStore. Returns NOT_FOUND when
// there is no such document or it is not signed yet.
func (db *DB) FindDocumentXML(ctx context.Context, tenantID string, env sello.Environment, encf string) ([]byte, error) {
	var xml []byte
	err := db.pool.QueryRow(ctx, `
		SELECT signed_xml FROM documents WHERE tenant_id = $1 AND environment = $2 AND encf = $3`,
		tenantID, env, encf).Scan(&xml)
	if isNoRows(err) {
		return nil, sello.DocumentNotFound(encf, env)
	} else if err != nil {
		return nil, dbError(err, "find document xml")
	} else if xml == nil {
		return nil, sello.Errorf(sello.CodeNotFound, "Document %s is not signed yet.", encf)
	}
	return xml, nil
}

// FindDocumentRFCE implements sello.LifecycleStore. Returns NOT_FOUND when
// there is no such document or it has no RFCE.
func (db *DB) FindDocumentRFCE(ctx context.Context, tenantID string, env sello.Environment, id string) ([]byte, error) {
	return db.findDocumentBlob(ctx, "rfce_xml", tenantID, env, id, sello.Errorf(sello.CodeNotFound, "Document %q has no signed RFCE.", id))
}

// FindDocumentARECF implements sello.LifecycleStore. Returns NOT_FOUND when
// there is no such document or it has no acuse.
func (db *DB) FindDocumentARECF(ctx context.Context, tenantID string, env sello.Environment, id string) ([]byte, error) {
	return db.findDocumentBlob(ctx, "arecf_xml", tenantID, env, id, sello.DocumentARECFNotFound(id))
}

// findDocumentBlob reads one XML column of a document by id; none is the
// error when it is NULL.
func (db *DB) findDocumentBlob(ctx context.Context, column, tenantID string, env sello.Environment, id string, none error) ([]byte, error) {
	var xml []byte
	err := db.pool.QueryRow(ctx, `
		SELECT `+column+` FROM documents WHERE tenant_id = $1 AND environment = $2 AND id = $3`,
		tenantID, env, id).Scan(&xml)
	if isNoRows(err) {
		return nil, sello.DocumentIDNotFound(id, env)
	} else if err != nil {
		return nil, dbError(err, "find document "+column)
	} else if xml == nil {
		return nil, none
	}
	return xml, nil
}

// FindDocumentHistory implements sello.LifecycleStore: oldest first.
// Returns NOT_FOUND when the tenant has no such document in env.
func (db *DB) FindDocumentHistory(ctx context.Context, tenantID string, env sello.Environment, id string) ([]sello.StatusChange, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT h.status, h.at, h.reason FROM document_status_history h
		JOIN documents d ON d.tenant_id = h.tenant_id AND d.id = h.document_id
		WHERE h.tenant_id = $1 AND d.environment = $2 AND h.document_id = $3
		ORDER BY h.at, h.id`, tenantID, env, id)
	if err != nil {
		return nil, dbError(err, "find document history")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sello.StatusChange, error) {
		var c sello.StatusChange
		err := r.Scan(&c.Status, &c.At, &c.Reason)
		c.At = utc(c.At)
		return c, err
	})
	if err != nil {
		return nil, dbError(err, "find document history")
	} else if len(out) == 0 {
		return nil, sello.DocumentIDNotFound(id, env)
	}
	return out, nil
}
