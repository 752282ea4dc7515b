package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Backup writes a copy of the store's file at src into dst while other
// connections and processes (a running server) go on reading and writing
// it. VACUUM INTO reads the database in one read transaction, so the copy
// is the database as it was when that transaction began, whatever commits
// during the copy, and a writer never waits for it (WAL); the copy is one
// file, without a log, and compacted (free pages left out). dst must not
// exist: it is written as dst+".partial" (mode 0600, as the store's
// files), synced, and renamed to dst only once complete.
//
// Backup opens src without creating it, applies no migration and starts
// nothing. While the copy runs, the store cannot cut its log back to
// nothing (the copy is a reader that needs it): the log grows by what is
// written meanwhile, and shrinks at the next checkpoint after the copy.
func Backup(ctx context.Context, src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("backup: %s exists already: name a new file", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	partial := dst + ".partial"
	// VACUUM INTO writes into an empty file: made here, its mode is ours.
	f, err := os.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(partial)
		}
	}()
	db, err := openFile(src, false)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, partial); err != nil {
		return fmt.Errorf("backup: vacuum into %s: %w", partial, err)
	}
	if err := syncFile(partial); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(partial, dst); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	done = true
	if err := syncFile(filepath.Dir(dst)); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// BackupReport is what CheckBackup found in a copy.
type BackupReport struct {
	// SchemaVersion is the newest migration applied to the copy; compare
	// it with SchemaVersion(), this build's.
	SchemaVersion int64
	// Tables are the copy's tables (Sello's, River's, the migrations'),
	// by name, with their rows.
	Tables []TableRows
}

// TableRows is a table of a copy and how many rows it has.
type TableRows struct {
	Name string
	Rows int64
}

// Rows returns the rows of the table named name, and whether there is one.
func (r *BackupReport) Rows(name string) (int64, bool) {
	i := slices.IndexFunc(r.Tables, func(t TableRows) bool { return t.Name == name })
	if i < 0 {
		return 0, false
	}
	return r.Tables[i].Rows, true
}

// CheckBackup checks the store file at path, a copy Backup made: SQLite's
// integrity check (every page, index and constraint), then the schema
// version and every table's rows, which it reads in full. It changes
// nothing in the file. An error names what is wrong.
func CheckBackup(ctx context.Context, path string) (*BackupReport, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("check backup: %w", err)
	}
	db, err := openFile(path, true)
	if err != nil {
		return nil, fmt.Errorf("check backup: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check(20)`)
	if err != nil {
		return nil, fmt.Errorf("check backup %s: %w", path, err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, fmt.Errorf("check backup %s: %w", path, err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("check backup %s: %w", path, err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("check backup %s: integrity check failed: %s", path, strings.Join(problems, "; "))
	}
	r := &BackupReport{}
	if err := db.QueryRowContext(ctx, `SELECT coalesce(max(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&r.SchemaVersion); err != nil {
		return nil, fmt.Errorf("check backup %s: no migrations table (not a Sello database?): %w", path, err)
	}
	names, err := tableNames(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("check backup %s: %w", path, err)
	}
	for _, name := range names {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+strings.ReplaceAll(name, `"`, `""`)+`"`).Scan(&n); err != nil {
			return nil, fmt.Errorf("check backup %s: count %s: %w", path, name, err)
		}
		r.Tables = append(r.Tables, TableRows{Name: name, Rows: n})
	}
	return r, nil
}

// SchemaVersion returns the newest migration this build applies: a copy
// of a newer schema was made by a newer Sello.
func SchemaVersion() int64 {
	var newest int64
	entries, _ := fs.ReadDir(migrations, "migrations")
	for _, e := range entries {
		if v, err := strconv.ParseInt(strings.SplitN(e.Name(), "_", 2)[0], 10, 64); err == nil {
			newest = max(newest, v)
		}
	}
	for _, m := range goMigrations() {
		newest = max(newest, m.Version)
	}
	return newest
}

// tableNames lists the database's tables but SQLite's own.
func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list tables: %w", err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// openFile opens the SQLite file at path on one connection, with the
// store's busy timeout, creating nothing (mode=rw); readOnly refuses every
// write (query_only).
func openFile(path string, readOnly bool) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	// A URI: SQLite reads mode=rw, which opens an existing file only; its
	// path is percent-encoded (a '?', '#' or '%' in it).
	dsn := "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "?mode=rw&_pragma=busy_timeout(10000)"
	if readOnly {
		dsn += "&_pragma=query_only(1)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// syncFile flushes the file or folder at path to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
