package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// StatsBase is how many rows of a table of Sello's must have changed since
// it was last analyzed (or ever) before AnalyzeStale analyzes it.
const StatsBase = 200

// staleTablesSQL lists the tables of the store's schema, changed by
// StatsBase rows or more since their last ANALYZE, that have no planner
// statistics yet or, when autovacuum is off, have grown to twice the rows
// their statistics count (at least StatsBase): a growing table is analyzed
// about once each time it doubles, and a table whose rows are updated but
// not added to (the day totals, the job queue) is not analyzed again, as
// the spread of its values, which the plans depend on, barely moves. With
// autovacuum on, tables analyzed once are left to it.
const staleTablesSQL = `
	SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
	WHERE s.schemaname = current_schema()
		AND s.n_mod_since_analyze >= $1
		AND (coalesce(s.last_analyze, s.last_autoanalyze) IS NULL
			OR (NOT current_setting('autovacuum')::boolean AND s.n_live_tup >= 2 * greatest(c.reltuples, $1)))
	ORDER BY s.relname`

// AnalyzeStale runs ANALYZE on the store's tables whose statistics are
// missing or stale (staleTablesSQL) and returns their names. Without
// statistics the planner takes every index that starts with tenant_id
// and environment as good as the unique one a lookup names: a document
// read or updated by id or e-NCF then walks all of its tenant's
// documents, and a create or a transition costs PostgreSQL more CPU the
// more documents the tenant has (docs/benchmarks.md, "Issue 23:
// PostgreSQL's CPU per document"). Autovacuum analyzes a new table only
// once its next round comes (a minute by default), and not at all where
// it is turned off; sello serve calls this every few seconds.
func (db *DB) AnalyzeStale(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, staleTablesSQL, StatsBase)
	if err != nil {
		return nil, dbError(err, "find stale statistics")
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, dbError(err, "find stale statistics")
	}
	for i, t := range tables {
		if _, err := db.pool.Exec(ctx, "ANALYZE "+pgx.Identifier{t}.Sanitize()); err != nil {
			return tables[:i], dbError(err, "analyze "+t)
		}
	}
	return tables, nil
}
