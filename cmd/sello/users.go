package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sello-do/sello"
)

// defaultPortalURL is where serve's portal answers by default (serve's
// default --addr).
const defaultPortalURL = "http://127.0.0.1:8080"

func runUsers(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, email, role, portalURL string
	return runGroup(ctx, "users", []command{
		{
			name: "create",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&email, "email", "", "the person's email address")
				fs.StringVar(&role, "role", "", "owner, admin, developer or accountant (a tenant's first user must be its owner)")
				fs.StringVar(&portalURL, "portal-url", envOr(getenv, "SELLO_PORTAL_URL", defaultPortalURL), "the portal's address as people's browsers reach it, for the link (env SELLO_PORTAL_URL)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				if err := required(map[string]string{"email": email, "role": role}); err != nil {
					return err
				}
				base, err := parsePortalURL(portalURL)
				if err != nil {
					return err
				}
				t, err := findTenant(ctx, st, rnc)
				if err != nil {
					return err
				}
				link, err := inviteUser(ctx, st, t, email, role, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, sello.LinkURL(base, link))
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
				ms, err := st.FindMemberships(ctx, t.ID)
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "email\trole\tpassword\tsecondFactor\tuserId\tmemberSince")
				for _, m := range ms {
					u, err := st.FindUserByID(ctx, m.UserID)
					if err != nil {
						return err
					}
					password, factor := "set", "off"
					if u.PasswordHash == "" {
						password = "pending"
					}
					if u.TOTPConfirmedAt != nil {
						factor = "on"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Email, m.Role, password, factor, m.UserID, sello.FormatTime(m.CreatedAt))
				}
				return tw.Flush()
			},
		},
	}, args, getenv, stdout, stderr)
}

// parsePortalURL checks --portal-url: an http(s) address without a query.
func parsePortalURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", usageError{fmt.Sprintf("--portal-url must be an http:// or https:// address, such as %s, not %q", defaultPortalURL, s)}
	}
	return strings.TrimRight(s, "/"), nil
}

// inviteUser makes the person with email a user (if new) with role in the
// tenant, and returns the token of an invitation link valid
// sello.InviteTTL, through which they set their password. It records the
// change in the tenant's audit log as the operator's.
func inviteUser(ctx context.Context, st *storage, t *sello.Tenant, email, role string, now time.Time) (token string, err error) {
	r, err := sello.ParseRole(role)
	if err != nil {
		return "", err
	}
	if email, err = sello.NormalizeEmail(email); err != nil {
		return "", err
	}
	members, err := st.FindMemberships(ctx, t.ID)
	if err != nil {
		return "", err
	}
	var before any
	owner := false
	for _, m := range members {
		owner = owner || m.Role == sello.RoleOwner
		if m.Email == email {
			before = map[string]string{"email": email, "role": string(m.Role)}
		}
	}
	if !owner && r != sello.RoleOwner {
		return "", sello.Errorf(sello.CodeConflict, "Tenant %s has no owner yet: its first user must be --role owner.", t.RNC)
	}
	u, err := st.FindUserByEmail(ctx, email)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		u = &sello.User{Email: email}
		err = st.CreateUser(ctx, u)
	}
	if err != nil {
		return "", err
	}
	if err := st.PutMembership(ctx, &sello.Membership{TenantID: t.ID, UserID: u.ID, Role: r}); err != nil {
		return "", err
	}
	token, hash := sello.NewToken()
	link := &sello.OneTimeLink{TokenHash: hash, Purpose: sello.LinkInvite, Email: email, TenantID: t.ID, Role: r, ExpiresAt: now.Add(sello.InviteTTL)}
	if err := st.CreateLink(ctx, link); err != nil {
		return "", err
	}
	entry := &sello.AuditEntry{TenantID: t.ID, ActorEmail: "operator", Action: "user.invited", Target: u.ID,
		After: mustJSON(map[string]string{"email": email, "role": string(r)})}
	if before != nil {
		entry.Before = mustJSON(before)
	}
	if err := st.AppendAudit(ctx, entry); err != nil {
		return "", err
	}
	return token, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func runAudit(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var rnc, action string
	var limit int
	var before int64
	return runGroup(ctx, "audit", []command{
		{
			name:  "verify",
			flags: func(fs *flag.FlagSet) { fs.StringVar(&rnc, "tenant", "", "the tenant's RNC (default: every tenant)") },
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				var tenants []*sello.Tenant
				if rnc != "" {
					t, err := findTenant(ctx, st, rnc)
					if err != nil {
						return err
					}
					tenants = []*sello.Tenant{t}
				} else {
					var err error
					if tenants, err = st.FindTenants(ctx); err != nil {
						return err
					}
				}
				return verifyAudit(ctx, st, tenants, stdout)
			},
		},
		{
			name: "list",
			flags: func(fs *flag.FlagSet) {
				fs.StringVar(&rnc, "tenant", "", "the tenant's RNC")
				fs.StringVar(&action, "action", "", "only actions that start with this, e.g. api_key.")
				fs.IntVar(&limit, "limit", sello.DefaultAuditLimit, fmt.Sprintf("at most this many entries (up to %d)", sello.MaxAuditLimit))
				fs.Int64Var(&before, "before", 0, "only entries before this seq (the next page)")
			},
			run: func(ctx context.Context, st *storage, stdout io.Writer) error {
				t, err := findTenant(ctx, st, rnc)
				if err != nil {
					return err
				}
				entries, err := st.FindAudit(ctx, t.ID, sello.AuditFilter{Action: action, Limit: limit, Before: before})
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "seq\tat\tactor\taction\ttarget\taddress\tbefore\tafter")
				for _, e := range entries {
					fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Seq, sello.FormatTime(e.At), e.ActorEmail, e.Action,
						orDash(e.Target), orDash(e.Address), orDash(string(e.Before)), orDash(string(e.After)))
				}
				return tw.Flush()
			},
		},
	}, args, getenv, stdout, stderr)
}

// verifyAudit checks each tenant's audit chain and prints its length and
// head (the last entry's seq and hash: keep it elsewhere to see later that
// no entry was removed from the end). It returns an error naming every
// tenant whose chain is broken and the first broken seq.
func verifyAudit(ctx context.Context, st *storage, tenants []*sello.Tenant, stdout io.Writer) error {
	var broken []error
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "tenant\tentries\thead\tstate")
	for _, t := range tenants {
		chain, err := st.AuditChain(ctx, t.ID)
		if err != nil {
			return err
		}
		head := "-"
		if n := len(chain); n > 0 {
			head = fmt.Sprintf("%d:%s", chain[n-1].Seq, hex.EncodeToString(chain[n-1].Hash))
		}
		state := "ok"
		var ce *sello.AuditChainError
		if err := sello.VerifyAuditChain(chain); errors.As(err, &ce) {
			state = fmt.Sprintf("BROKEN at seq %d", ce.Seq)
			broken = append(broken, fmt.Errorf("the audit chain of tenant %s is broken at seq %d: %s", t.RNC, ce.Seq, ce.Reason))
		} else if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", t.RNC, len(chain), head, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return errors.Join(broken...)
}
