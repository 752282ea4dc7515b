package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/sello-do/sello"
)

// runDGII is the operator's view of DGII's reachability: sello dgii
// status, what GET /{env}/estado-dgii answers, for every environment.
func runDGII(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc string
	return runGroup(ctx, "dgii", []command{
		{
			name: "status",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "also count this tenant's documents waiting for DGII (RNC)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				var t *sello.Tenant
				if rnc != "" {
					var err error
					if t, err = findTenant(ctx, st, rnc); err != nil {
						return err
					}
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "environment\tstate\tsince\tuntil\tfailingSince\twaiting\toldestWaiting\tdeadline")
				for _, env := range sello.Environments {
					r, err := st.FindReachability(ctx, env)
					if err != nil {
						return err
					}
					res := r.Resource(0, nil)
					waiting := "-"
					if t != nil {
						n, oldest, err := st.CountWaitingDocuments(ctx, t.ID, env)
						if err != nil {
							return err
						}
						res = r.Resource(n, oldest)
						waiting = strconv.Itoa(n)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", env, res.State, strOrDash(res.Since), strOrDash(res.Until),
						strOrDash(res.FailingSince), waiting, strOrDash(res.OldestWaiting), strOrDash(res.Deadline))
				}
				return tw.Flush()
			},
		},
	}, args, getenv, stdout, stderr)
}

// strOrDash is *s, or "-" for nil.
func strOrDash(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}
