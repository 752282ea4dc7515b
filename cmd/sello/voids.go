package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sello-do/sello"
)

// rangeFlags collects --range type:from-to flags.
type rangeFlags []sello.VoidRangeRequest

func (r *rangeFlags) String() string { return fmt.Sprint(*r) }

// Set parses type:from-to (31:1-10, E31:5-5).
func (r *rangeFlags) Set(v string) error {
	typ, span, ok := strings.Cut(v, ":")
	from, to, ok2 := strings.Cut(span, "-")
	f, err1 := strconv.ParseInt(from, 10, 64)
	t, err2 := strconv.ParseInt(to, 10, 64)
	if !ok || !ok2 || typ == "" || err1 != nil || err2 != nil {
		return fmt.Errorf("range %q: want type:from-to, e.g. 31:1-10", v)
	}
	*r = append(*r, sello.VoidRangeRequest{Type: typ, From: f, To: t})
	return nil
}

// runVoids voids unused e-NCF ranges (sello.CreateVoid, as POST
// /{env}/anulaciones) and lists the tenant's voids.
func runVoids(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, envName, typ string
	var from, to int64
	var ranges rangeFlags
	return runGroup(ctx, "voids", []command{
		{
			name: "add",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", "", "environment: TesteCF, CerteCF or eCF")
				fs.StringVar(&typ, "type", "", "e-CF type of the range given by --from and --to")
				fs.Int64Var(&from, "from", 0, "first sequential to void")
				fs.Int64Var(&to, "to", 0, "last sequential to void")
				fs.Var(&ranges, "range", "another range to void, type:from-to (e.g. 32:100-199); repeatable")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"env": envName}); err != nil {
					return err
				}
				req := sello.VoidRequest{Ranges: ranges}
				if typ != "" || from != 0 || to != 0 {
					req.Ranges = append([]sello.VoidRangeRequest{{Type: typ, From: from, To: to}}, req.Ranges...)
				}
				if len(req.Ranges) == 0 {
					return usageError{"voids add: give --type, --from and --to, or --range type:from-to"}
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				v, _, err := sello.CreateVoid(ctx, st, sello.VoidDraft{TenantID: t.ID, Environment: env, Request: req})
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s %s %d numbers\n", v.ID, v.State, v.Count())
				return nil
			},
		},
		{
			name: "list",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", "", "environment: TesteCF, CerteCF or eCF")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"env": envName}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "id\tstate\tcount\tranges\tdgii\tcreatedAt")
				cursor := ""
				for {
					voids, next, err := st.ListVoids(ctx, t.ID, env, sello.VoidFilter{Cursor: cursor, Limit: sello.MaxPageSize})
					if err != nil {
						return err
					}
					for _, v := range voids {
						rs := make([]string, len(v.Ranges))
						for i, r := range v.Ranges {
							rs[i] = r.String()
						}
						dgii := "-"
						if v.DGII != nil {
							dgii = v.DGII.String()
						} else if v.FailureReason != "" {
							dgii = v.FailureReason
						}
						fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", v.ID, v.State, v.Count(), strings.Join(rs, ","), dgii, sello.FormatTime(v.CreatedAt))
					}
					if cursor = next; cursor == "" {
						break
					}
				}
				return tw.Flush()
			},
		},
	}, args, getenv, stdout, stderr)
}
