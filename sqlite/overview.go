package sqlite

import (
	"context"

	"github.com/sello-do/sello"
	"github.com/shopspring/decimal"
)

// The month at a glance reads the day totals the triggers of migration 21
// keep (document_days, inbound_days): a range of their primary key, one
// row per day, type and state, whatever the number of documents.
const (
	issuedTotalsSQL = `
		SELECT day, type, state, count, total_cents, itbis_cents FROM document_days
		WHERE tenant_id = ? AND environment = ? AND day >= ? AND day <= ? AND count <> 0`
	receivedTotalsSQL = `
		SELECT day, type, state, count, total_cents, itbis_cents FROM inbound_days
		WHERE tenant_id = ? AND environment = ? AND day >= ? AND day <= ? AND count <> 0`
	// countFailedDeliveriesSQL counts from the partial index of failed
	// deliveries (webhook_deliveries_failed), stopping at the limit.
	countFailedDeliveriesSQL = `
		SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries
			WHERE tenant_id = ? AND environment = ? AND status = 'failed' LIMIT ?)`
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
	rows, err := db.q().query(ctx, query, tenantID, env, formatDate(from), formatDate(to))
	if err != nil {
		return nil, dbError(err, op)
	}
	defer rows.Close()
	var out []sello.DayTotals
	for rows.Next() {
		var t sello.DayTotals
		var day string
		var total, itbis int64
		if err := rows.Scan(&day, &t.Type, &t.State, &t.Count, &total, &itbis); err != nil {
			return nil, dbError(err, op)
		}
		if t.Day, err = parseDate(day); err != nil {
			return nil, err
		}
		t.Total, t.ITBIS = decimal.New(total, -2), decimal.New(itbis, -2)
		out = append(out, t)
	}
	return out, dbError(rows.Err(), op)
}

// CountFailedWebhookDeliveries implements sello.OverviewStore.
func (db *DB) CountFailedWebhookDeliveries(ctx context.Context, tenantID string, env sello.Environment, limit int) (int, error) {
	var n int
	err := db.q().queryRow(ctx, countFailedDeliveriesSQL, tenantID, env, limit).Scan(&n)
	return n, dbError(err, "count failed webhook deliveries")
}
