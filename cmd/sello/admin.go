package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sello-do/sello"
)

// command is one operator sub-command: its flags, and what it does with an
// open store.
type command struct {
	name  string
	flags func(fs *flag.FlagSet)
	run   func(ctx context.Context, st *storage, stdout io.Writer) error
	// create lets the command start new data where there is none (see
	// storageFlags.open): only tenants create does, with serve.
	create bool
}

// runGroup dispatches "sello GROUP SUB [flags]" to one of cmds.
func runGroup(ctx context.Context, group string, cmds []command, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	if len(args) == 0 {
		return usageError{fmt.Sprintf("usage: sello %s %s [flags]", group, strings.Join(names, "|"))}
	}
	for _, c := range cmds {
		if c.name != args[0] {
			continue
		}
		fs := flag.NewFlagSet("sello "+group+" "+c.name, flag.ContinueOnError)
		sf := storageFlags{stderr: stderr}
		sf.register(fs, getenv)
		c.flags(fs)
		if err := parseFlags(fs, args[1:], stderr); err != nil {
			return err
		}
		st, err := sf.open(ctx, c.create)
		if err != nil {
			return err
		}
		defer st.Close()
		return c.run(ctx, st, stdout)
	}
	return usageError{fmt.Sprintf("unknown command %q: use sello %s %s", args[0], group, strings.Join(names, "|"))}
}

// required returns a usage error naming the first empty flag.
func required(flags map[string]string) error {
	for _, name := range []string{"tenant", "rnc", "name", "env", "scopes", "id", "type", "p12", "password-env", "email", "role"} {
		if v, ok := flags[name]; ok && v == "" {
			return usageError{fmt.Sprintf("--%s is required", name)}
		}
	}
	return nil
}

func runTenants(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, name, planName, receiverAuth string
	var rate float64
	var burst int
	planFlags := func(fs *flag.FlagSet) {
		fs.StringVar(&planName, "plan", sello.DefaultRatePlan.Name, "rate plan name")
		fs.Float64Var(&rate, "rate", sello.DefaultRatePlan.Rate, "requests per second per API key")
		fs.IntVar(&burst, "burst", sello.DefaultRatePlan.Burst, "requests at once per API key")
	}
	return runGroup(ctx, "tenants", []command{
		{
			name:   "create",
			create: true,
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "rnc", "", "the taxpayer's RNC (9 or 11 digits)")
				fs.StringVar(&name, "name", "", "the taxpayer's legal name (razón social)")
				planFlags(fs)
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"rnc": rnc, "name": name}); err != nil {
					return err
				}
				t := &sello.Tenant{RNC: rnc, Name: name, Plan: sello.RatePlan{Name: planName, Rate: rate, Burst: burst}}
				if err := st.CreateTenant(ctx, t); err != nil {
					return err
				}
				fmt.Fprintln(stdout, t.RNC)
				return nil
			},
		},
		{
			name:  "list",
			flags: func(fs *flag.FlagSet) {},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				ts, err := st.FindTenants(ctx)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "rnc\tname\tplan\tid\tcreatedAt")
				for _, t := range ts {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.RNC, t.Name, t.Plan, t.ID, sello.FormatTime(t.CreatedAt))
				}
				return tw.Flush()
			},
		},
		{
			name: "set-plan",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				planFlags(fs)
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				t, err := findTenant(ctx, st, rnc)
				if err != nil {
					return err
				}
				plan := sello.RatePlan{Name: planName, Rate: rate, Burst: burst}
				if err := st.UpdateTenantPlan(ctx, t.ID, plan); err != nil {
					return err
				}
				fmt.Fprintln(stdout, plan)
				return nil
			},
		},
		{
			name: "set-receiver-auth",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&receiverAuth, "required", "", "on: the tenant's receiver services (reception, commercial approval) require a token from its authentication service, as by default; off: they take documents without one (docs/receptor.md)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"required": receiverAuth}); err != nil {
					return err
				}
				var on bool
				switch receiverAuth {
				case "on":
					on = true
				case "off":
				default:
					return usageError{fmt.Sprintf("--required must be on or off, not %q", receiverAuth)}
				}
				t, err := findTenant(ctx, st, rnc)
				if err != nil {
					return err
				}
				if err := st.SetReceiverAuth(ctx, t.ID, on); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "receiver authentication %s for %s\n", receiverAuth, t.RNC)
				return nil
			},
		},
	}, args, getenv, stdout, stderr)
}

// findTenant finds the tenant the --tenant flag names by RNC.
func findTenant(ctx context.Context, st *storage, rnc string) (*sello.Tenant, error) {
	if err := required(map[string]string{"tenant": rnc}); err != nil {
		return nil, err
	}
	t, err := st.FindTenantByRNC(ctx, rnc)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return nil, sello.Errorf(sello.CodeNotFound, "No tenant has RNC %s (create it with sello tenants create).", rnc)
	}
	return t, err
}

// findTenantEnv resolves the --tenant and --env flags.
func findTenantEnv(ctx context.Context, st *storage, rnc, envName string) (*sello.Tenant, sello.Environment, error) {
	t, err := findTenant(ctx, st, rnc)
	if err != nil {
		return nil, "", err
	}
	env, err := sello.ParseEnvironmentAnyCase(envName)
	return t, env, err
}

func runKeys(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, envName, scopes, name, expires, id string
	return runGroup(ctx, "keys", []command{
		{
			name: "create",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", "", "environment: TesteCF, CerteCF or eCF")
				fs.StringVar(&scopes, "scopes", "", "comma-separated scopes: "+sello.JoinScopes(sello.Scopes))
				fs.StringVar(&name, "name", "", "a name to recognise the key by (e.g. the integration)")
				fs.StringVar(&expires, "expires", "", "expiry date, yyyy-MM-dd (dd-MM-yyyy is accepted too); keys do not expire by default")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"env": envName, "scopes": scopes}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				sc, err := sello.ParseScopes(scopes)
				if err != nil {
					return err
				}
				var exp *time.Time
				if expires != "" {
					d, err := sello.ParseDate(expires)
					if err != nil {
						return err
					}
					// The key works through the whole expiry day in the DR.
					at := time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, sello.DRZone).UTC()
					if !at.After(time.Now()) {
						return sello.Errorf(sello.CodeInvalidRequest, "Expiry %s is in the past.", d)
					}
					exp = &at
				}
				k, plaintext := sello.NewAPIKey(t.ID, env, name, sc, exp)
				if err := st.CreateAPIKey(ctx, k); err != nil {
					return err
				}
				fmt.Fprintln(stdout, plaintext)
				return nil
			},
		},
		{
			name:  "list",
			flags: func(fs *flag.FlagSet) { fs.StringVar(&rnc, "tenant", "", "the tenant's RNC") },
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				t, err := findTenant(ctx, st, rnc)
				if err != nil {
					return err
				}
				keys, err := st.FindAPIKeys(ctx, t.ID)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				// A rotation reads across: when the old key was last used
				// and from where, when the new one was first used.
				fmt.Fprintln(tw, "id\tenvironment\tname\tlast4\tscopes\tcreatedAt\texpiresAt\trevokedAt\tlastUsedAt\tlastUsedAddress\tfirstUsedAt")
				for _, k := range keys {
					fmt.Fprintf(tw, "%s\t%s\t%s\t…%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Environment, orDash(k.Name), k.Last4,
						sello.JoinScopes(k.Scopes), sello.FormatTime(k.CreatedAt), timeOrDash(k.ExpiresAt), timeOrDash(k.RevokedAt),
						timeOrDash(k.LastUsedAt), orDash(k.LastUsedAddress), timeOrDash(k.FirstUsedAt))
				}
				return tw.Flush()
			},
		},
		{
			name: "revoke",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&id, "id", "", "the key's id (see sello keys list)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"id": id}); err != nil {
					return err
				}
				t, err := findTenant(ctx, st, rnc)
				if err != nil {
					return err
				}
				if err := st.RevokeAPIKey(ctx, t.ID, id, time.Now()); err != nil {
					return err
				}
				fmt.Fprintln(stdout, id)
				return nil
			},
		},
	}, args, getenv, stdout, stderr)
}

func runSequences(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, envName, typ, expires string
	var from, to int64
	return runGroup(ctx, "sequences", []command{
		{
			name: "add",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&envName, "env", "", "environment: TesteCF, CerteCF or eCF")
				fs.StringVar(&typ, "type", "", "e-CF type: 31, 32, 33, 34, 41, 43, 44, 45, 46 or 47")
				fs.Int64Var(&from, "from", 0, "first sequential of the authorized range")
				fs.Int64Var(&to, "to", 0, "last sequential of the authorized range")
				fs.StringVar(&expires, "expires", "", "the authorization's expiry (FechaVencimientoSecuencia), yyyy-MM-dd as the API's expiresOn (DGII's dd-MM-yyyy is accepted too): required for every type but 32 and 34, which have none; an expired range is refused")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"env": envName, "type": typ}); err != nil {
					return err
				}
				t, env, err := findTenantEnv(ctx, st, rnc, envName)
				if err != nil {
					return err
				}
				req := sello.SequenceRequest{Type: typ, From: from, To: to}
				if expires != "" {
					req.ExpiresOn = &expires
				}
				seq, err := sello.RegisterSequence(ctx, st, t.ID, env, req, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s %s–%s\n", seq.ID, sello.ENCF{Type: seq.Type, Number: from}, sello.ENCF{Type: seq.Type, Number: to})
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
				seqs, err := st.FindSequences(ctx, t.ID, env)
				if err != nil {
					return err
				}
				// The columns are GET /{env}/secuencias's fields, as the API
				// writes them; "-" is null.
				now := time.Now()
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "id\ttype\tfrom\tto\tnext\tused\tleft\texpiresOn\tstate\tcreatedAt")
				for _, s := range seqs {
					r := s.Resource(now)
					exp := "-"
					if r.ExpiresOn != nil {
						exp = r.ExpiresOn.String()
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%s\n", r.ID, r.Type, r.From, r.To, strOrDash(r.Next), r.Used, r.Left, exp, r.State, r.CreatedAt)
				}
				return tw.Flush()
			},
		},
	}, args, getenv, stdout, stderr)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return sello.FormatTime(*t)
}
