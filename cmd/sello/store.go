package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/sqlite"
)

// storageFlags are the flags every command takes to find its storage.
type storageFlags struct {
	// stderr is where open and masterKey warn (a mode they narrowed);
	// nil: os.Stderr.
	stderr      io.Writer
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
	// newJobRunner is the engine's job runner (River on the engine's
	// database): the domain's Store names no River type.
	newJobRunner func(*river.Workers, jobs.Config) (jobs.Runner, error)
	// countJobs and observeCommits are what the metrics read of the
	// engine (its CountJobs and ObserveCommits).
	countJobs      func(ctx context.Context, limit int) ([]jobs.Count, error)
	observeCommits func(f func(group int, took time.Duration))
	limiter        sello.RateLimiter
	ready          func(ctx context.Context) error
	desc           string
	flags          storageFlags
}

// open opens the store the flags name. With create (serve, tenants create)
// it sets up what is missing: the data folder and the SQLite file, or
// Sello's tables in an empty PostgreSQL database. Without, it creates
// nothing and answers errNoData when there is no Sello data there, so a
// command run from the wrong folder says so instead of leaving an empty
// database behind.
func (f *storageFlags) open(ctx context.Context, create bool) (*storage, error) {
	if u := f.databaseURL; u != "" {
		if !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
			return nil, usageError{"--database-url must be a postgres:// URL"}
		}
		if !create {
			ok, err := postgres.Exists(ctx, u)
			if err != nil {
				return nil, fmt.Errorf("open postgres: %w", err)
			}
			if !ok {
				return nil, fmt.Errorf("%w in the PostgreSQL database %s (no Sello tables in its schema): point --database-url (or SELLO_DATABASE_URL) at your database; to start new data there, run sello serve or sello tenants create with it", errNoData, redact(u))
			}
		}
		db, err := postgres.OpenPools(ctx, u, postgres.Pools{MaxConns: f.maxConns, JobsMaxConns: f.jobsMaxConns})
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		return &storage{Store: db, newJobRunner: db.NewJobRunner, countJobs: db.CountJobs, observeCommits: db.ObserveCommits,
			limiter: postgres.NewRateLimiter(db), ready: db.Pool().Ping, desc: "postgres", flags: *f}, nil
	}
	path := filepath.Join(f.data, "sello.db")
	if !create {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w at %s (no sello.db in it): point --data (or SELLO_DATA) at your data folder, or --database-url at your PostgreSQL database; to start new data there, run sello serve or sello tenants create with it", errNoData, absPath(f.data))
		}
	}
	if err := f.secureData(); err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	return &storage{Store: db, newJobRunner: db.NewJobRunner, countJobs: db.CountJobs, observeCommits: db.ObserveCommits,
		limiter: sello.NewMemoryRateLimiter(), ready: db.SQL().PingContext, desc: "sqlite " + path, flags: *f}, nil
}

// errNoData is open's answer, without create, where there is no Sello data.
var errNoData = errors.New("no Sello data")

// Modes of the data folder and the master key file: they hold buyers' data,
// API key hashes and sealed certificate keys, so only the owner reads them
// (the SQLite files are the sqlite package's: 0600).
const (
	dataFolderMode = 0o700
	keyFileMode    = 0o600
)

// secureData creates the data folder with mode 0700, or narrows an existing
// folder's mode to 0700, and narrows the master key file's, if there is
// one, to 0600, warning on stderr when a mode was wider.
func (f *storageFlags) secureData() error {
	if err := os.MkdirAll(f.data, dataFolderMode); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	if err := f.restrictMode(f.data, dataFolderMode, "data folder"); err != nil {
		return err
	}
	err := f.restrictMode(filepath.Join(f.data, masterKeyFile), keyFileMode, "master key file")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// restrictMode sets path's permissions to mode unless they are that
// already, and warns if they let anyone else in.
func (f *storageFlags) restrictMode(path string, mode fs.FileMode, what string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	was := fi.Mode().Perm()
	if was == mode {
		return nil
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("set the mode of the %s: %w", what, err)
	}
	if was&0o077 != 0 {
		w := f.stderr
		if w == nil {
			w = os.Stderr
		}
		fmt.Fprintf(w, "sello: warning: the %s %s was mode %#o, open to other users; it is now %#o\n", what, absPath(path), was, mode)
	}
	return nil
}

// absPath is path made absolute for a message, or path if that fails.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// redact returns a database URL without its password, for a message.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(--database-url)"
	}
	return p.Redacted()
}
