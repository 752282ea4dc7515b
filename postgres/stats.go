package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// StatsBase is how many rows a table of Sello's must have changed since it
// was last analyzed (or ever) before AnalyzeStale analyzes it, on top of
// its live rows when it has statistics already (see AnalyzeStale).
const StatsBase = 200

// staleTablesSQL lists the tables of the store's schema whose planner
// statistics are missing, or, when autovacuum is off, out of date: changed
// by StatsBase rows plus as many as they hold since the last ANALYZE
// (a table analyzed again each time it has about doubled, or, for
// documents, changed five times a row: a create and its transitions).
// With autovacuum on, tables analyzed once are left to it.
const staleTablesSQL = `
	SELECT relname FROM pg_stat_user_tables
	WHERE schemaname = current_schema()
		AND n_mod_since_analyze >= $1
		AND (coalesce(last_analyze, last_autoanalyze) IS NULL
			OR (NOT current_setting('autovacuum')::boolean AND n_mod_since_analyze >= $1 + n_live_tup))
	ORDER BY relname`

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
