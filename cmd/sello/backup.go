package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/sello-do/sello/sqlite"
)

// runBackup copies the SQLite database into a new file while a server may
// be writing it, then checks the copy (--out); or only checks a copy
// (--check). PostgreSQL is refused: pg_dump backs it up (docs/operations.md,
// "Backups").
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sello backup", flag.ContinueOnError)
	sf := storageFlags{stderr: stderr}
	sf.register(fs, getenv)
	out := fs.String("out", "", "the new file to copy DATA/sello.db into (it must not exist); the copy is then checked")
	check := fs.String("check", "", "only check this copy: SQLite's integrity check, its schema version, every table's rows")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if sf.databaseURL != "" {
		return usageError{"sello backup copies the SQLite database (--data); PostgreSQL's is backed up with its own tools: pg_dump --format=custom --file=sello.dump \"$SELLO_DATABASE_URL\" (docs/operations.md, \"Backups\")"}
	}
	switch {
	case (*out == "") == (*check == ""):
		return usageError{"sello backup needs --out FILE (copy the database, then check the copy) or --check FILE (check a copy)"}
	case *check != "":
		return reportBackup(ctx, *check, stdout)
	}
	src := filepath.Join(sf.data, "sello.db")
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("%w at %s (no sello.db in it): point --data (or SELLO_DATA) at your data folder", errNoData, absPath(sf.data))
	}
	start := time.Now()
	if err := sqlite.Backup(ctx, src, *out); err != nil {
		return err
	}
	fi, err := os.Stat(*out)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(stdout, "copied %s to %s: %d bytes in %s\n", absPath(src), absPath(*out), fi.Size(), time.Since(start).Round(time.Millisecond))
	return reportBackup(ctx, *out, stdout)
}

// reportBackup checks the copy at path and prints what it holds.
func reportBackup(ctx context.Context, path string, stdout io.Writer) error {
	r, err := sqlite.CheckBackup(ctx, path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "integrity ok; schema version %d (this sello's: %d)\n", r.SchemaVersion, sqlite.SchemaVersion())
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "table\trows")
	for _, t := range r.Tables {
		fmt.Fprintf(tw, "%s\t%d\n", t.Name, t.Rows)
	}
	return tw.Flush()
}
