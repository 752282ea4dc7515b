package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/testset"
)

// runCertification is `sello certification run|list|show`: DGII's test set in
// CerteCF (docs/certification.md), started through the same operation as
// POST /{env}/certificacion/pruebas (sello.StartCertification). A running
// `sello serve` on the same storage sends the rows.
func runCertification(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, envName, file, id string
	return runGroup(ctx, "certification", []command{
		{
			name: "run",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", string(sello.EnvCert), "environment: only CerteCF runs DGII's test set")
				fs.StringVar(&file, "file", "", "DGII's test-set workbook (.xlsx), or its rows as JSON (.json)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"file": file}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				if err := sello.CertificationEnvironment(env); err != nil {
					return err
				}
				rows, err := readTestSetFile(file)
				if err != nil {
					return err
				}
				run, _, err := sello.StartCertification(ctx, st, t.ID, env, rows, "", time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s %d rows\n", run.ID, len(run.Rows))
				return nil
			},
		},
		{
			name: "list",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", string(sello.EnvCert), "environment")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				runs, err := st.FindCertificationRuns(ctx, t.ID, env)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "id\tstate\tcounts\tcreatedAt\tupdatedAt")
				for _, run := range runs {
					r := run.Summary()
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.State, countsOf(r.Counts), r.CreatedAt, r.UpdatedAt)
				}
				return tw.Flush()
			},
		},
		{
			name: "show",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", string(sello.EnvCert), "environment")
				fs.StringVar(&id, "id", "", "the run's id")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"id": id}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				run, err := st.FindCertificationRun(ctx, t.ID, env, id)
				if err != nil {
					return err
				}
				printRun(stdout, run)
				return nil
			},
		},
	}, args, getenv, stdout, stderr)
}

// readTestSetFile reads a workbook, or JSON rows when the name ends .json.
func readTestSetFile(name string) ([]*sello.CertificationRow, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--file: %v", err)}
	}
	defer f.Close()
	if strings.EqualFold(filepath.Ext(name), ".json") {
		b, err := io.ReadAll(io.LimitReader(f, testset.MaxSize+1))
		if err != nil {
			return nil, err
		}
		return testset.ReadJSON(b)
	}
	return testset.ReadWorkbook(f)
}

// printRun writes the run's state, its rows' progress and its failure.
func printRun(w io.Writer, run *sello.CertificationRun) {
	fmt.Fprintf(w, "%s %s %s\n", run.ID, run.Environment, run.State)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "index\tsheet\tsheetRow\tkind\tencf\tstate\ttrackId\tdgii")
	for _, r := range run.Rows {
		track, dgii := "-", "-"
		if r.TrackID != "" {
			track = r.TrackID
		}
		if r.DGII != nil {
			dgii = r.DGII.String()
		} else if r.Error != "" {
			dgii = r.Error
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Index, r.Sheet, r.SheetRow, r.Kind, r.ENCF, r.State, track, dgii)
	}
	tw.Flush()
	if f := run.Failure; f != nil {
		fmt.Fprintf(w, "%s\n", f.Message)
		for _, m := range f.Mensajes {
			fmt.Fprintf(w, "  DGII %s\n", m)
		}
	}
}

// countsOf writes a run's counts as state=n pairs, by state.
func countsOf(counts map[string]int) string {
	var out []string
	for _, st := range slices.Sorted(maps.Keys(counts)) {
		out = append(out, fmt.Sprintf("%s=%d", st, counts[st]))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}
