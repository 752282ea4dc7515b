package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/shopspring/decimal"
)

// The month at a glance reads the day totals the triggers of migration 22
// keep (document_days, inbound_days): a range of their primary key, one
// row per day, type and state (document_days: per slot, up to 16, summed;
// migration 27), whatever the number of documents.
const (
	issuedTotalsSQL = `
		SELECT day, type, state, sum(count)::bigint, sum(total)::text, sum(itbis)::text FROM document_days
		WHERE tenant_id = $1 AND environment = $2 AND day >= $3 AND day <= $4
		GROUP BY day, type, state HAVING sum(count) <> 0`
	receivedTotalsSQL = `
		SELECT day, type, state, count, total::text, itbis::text FROM inbound_days
		WHERE tenant_id = $1 AND environment = $2 AND day >= $3 AND day <= $4 AND count <> 0`
	// countFailedDeliveriesSQL counts from the partial index of failed
	// deliveries (webhook_deliveries_failed), stopping at the limit.
	countFailedDeliveriesSQL = `
		SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries
			WHERE tenant_id = $1 AND environment = $2 AND status = 'failed' LIMIT $3) f`
)

// FindIssuedTotals implements sello.OverviewStore.
func (db *DB) FindIssuedTotals(ctx context.Context, tenantID string, env sello.Environment, from, to sello.Date) ([]sello.DayTotals, error) {
	return db.findDayTotals(ctx, "find issued totals", issuedTotalsSQL, tenantID, env, from, to)
}

// FindReceivedTotals implements sello.OverviewStore.
func (db *DB) FindReceivedTotals(ctx context.Context, tenantID string, env sello.Environment, from, to sello.Date) ([]sello.DayTotals, error) {
	return db.findDayTotals(ctx, "find received totals", receivedTotalsSQL, tenantID, env, from, to)
}

func (db *DB) findDayTotals(ctx context.Context, op, query, tenantID string, env sello.Environment, from, to sello.Date) ([]sello.DayTotals, error) {
	rows, err := db.pool.Query(ctx, query, tenantID, env, dateValue(from), dateValue(to))
	if err != nil {
		return nil, dbError(err, op)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sello.DayTotals, error) {
		var t sello.DayTotals
		var day time.Time
		var total, itbis string
		if err := r.Scan(&day, &t.Type, &t.State, &t.Count, &total, &itbis); err != nil {
			return t, err
		}
		t.Day = sello.DateOf(day)
		var err error
		if t.Total, err = decimal.NewFromString(total); err != nil {
			return t, fmt.Errorf("total %q: %w", total, err)
		} else if t.ITBIS, err = decimal.NewFromString(itbis); err != nil {
			return t, fmt.Errorf("itbis %q: %w", itbis, err)
		}
		return t, nil
	})
	return out, dbError(err, op)
}

// CountFailedWebhookDeliveries implements sello.OverviewStore.
func (db *DB) CountFailedWebhookDeliveries(ctx context.Context, tenantID string, env sello.Environment, limit int) (int, error) {
	var n int
	err := db.pool.QueryRow(ctx, countFailedDeliveriesSQL, tenantID, env, limit).Scan(&n)
	return n, dbError(err, "count failed webhook deliveries")
}
