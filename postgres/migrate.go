package postgres

import (
	"context"
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrate applies every pending migration, Sello's then River's, under a
// session advisory lock, so that nodes starting at once migrate one after
// the other. The lock is per schema: stores in different schemas of one
// database do not wait for each other.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return fmt.Errorf("migrate: current schema: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte("sello migrations " + schema))
	id := int64(h.Sum64() >> 1)
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, id); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, id); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // closing the session releases the lock
		}
	}()
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, fsys)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return migrateRiver(ctx, pool)
}

// Exists reports whether the database at url (postgres://…, as Open takes
// it) holds Sello's data: its migration table and its tenants in the schema
// the URL selects (search_path, else the user's default). It changes
// nothing, so that a command can refuse an empty database instead of
// migrating it, as Open would.
func Exists(ctx context.Context, url string) (bool, error) {
	cfg, err := pgxpool.ParseConfig(url) // takes pool_* parameters, as Open does
	if err != nil {
		return false, fmt.Errorf("parse database url: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return false, fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var ok bool
	// With no schema of the search path in the database current_schema()
	// is NULL, and nothing matches.
	if err := conn.QueryRow(ctx, `
		SELECT count(*) = 2 FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relname IN ('goose_db_version', 'tenants')`).Scan(&ok); err != nil {
		return false, fmt.Errorf("look for sello's tables: %w", err)
	}
	return ok, nil
}
