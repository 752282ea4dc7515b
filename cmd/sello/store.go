package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/sqlite"
)

// storageFlags are the flags every command takes to find its storage.
type storageFlags struct {
	data        string
	databaseURL string

	// PostgreSQL's pool sizes (serve's --db-max-conns and
	// --jobs-db-max-conns); zero takes postgres.OpenPools' defaults.
	maxConns, jobsMaxConns int
}

func (f *storageFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&f.data, "data", envOr(getenv, "SELLO_DATA", "./sello-data"), "data folder of the embedded SQLite database (env SELLO_DATA)")
	fs.StringVar(&f.databaseURL, "database-url", getenv("SELLO_DATABASE_URL"), "postgres://… to use PostgreSQL instead of SQLite (env SELLO_DATABASE_URL)")
}

func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// storage is an open store with what the server needs beside it.
type storage struct {
	sello.Store
	limiter sello.RateLimiter
	ready   func(ctx context.Context) error
	desc    string
	flags   storageFlags
}

// open opens the store the flags name, creating the data folder if needed.
func (f *storageFlags) open(ctx context.Context) (*storage, error) {
	if u := f.databaseURL; u != "" {
		if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
			return nil, usageError{"--database-url must be a postgres:// URL"}
		}
		db, err := postgres.OpenPools(ctx, u, postgres.Pools{MaxConns: f.maxConns, JobsMaxConns: f.jobsMaxConns})
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		return &storage{Store: db, limiter: postgres.NewRateLimiter(db), ready: db.Pool().Ping, desc: "postgres", flags: *f}, nil
	}
	if err := os.MkdirAll(f.data, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	path := filepath.Join(f.data, "sello.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	return &storage{Store: db, limiter: sello.NewMemoryRateLimiter(), ready: db.SQL().PingContext, desc: "sqlite " + path, flags: *f}, nil
}
