package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/webhook"
)

// runWebhooks is `sello webhooks …`: the operator's side of the portal's
// webhook pages (spec §4.5, DESIGN §5). Deliveries themselves are made by
// the workers of `sello serve`.
func runWebhooks(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	w := &webhooksCmd{getenv: getenv, stderr: stderr}
	return runGroup(ctx, "webhooks", []command{
		{name: "add", flags: w.addFlags, run: w.add},
		{name: "list", flags: w.listFlags, run: w.list},
		{name: "pause", flags: w.endpointFlags, run: w.pause},
		{name: "resume", flags: w.endpointFlags, run: w.resume},
		{name: "delete", flags: w.endpointFlags, run: w.delete},
		{name: "rotate-secret", flags: w.rotateSecretFlags, run: w.rotateSecret},
		{name: "test", flags: w.testFlags, run: w.test},
		{name: "deliveries", flags: w.deliveriesFlags, run: w.deliveries},
		{name: "attempts", flags: w.attemptsFlags, run: w.attempts},
		{name: "replay", flags: w.replayFlags, run: w.replay},
	}, args, getenv, stdout, stderr)
}

// webhooksCmd is one run of `sello webhooks SUB`: the flags SUB registered
// (the others stay zero), and what its run needs besides the store.
type webhooksCmd struct {
	getenv func(string) string
	stderr io.Writer

	// What a command acts on: --tenant, --env, --endpoint, --delivery.
	rnc, envName, endpointID, deliveryID string
	// add and rotate-secret.
	url, secret, events     string
	generate, allowLoopback bool
	overlap                 time.Duration
	// test.
	wait        bool
	waitTimeout time.Duration
	// deliveries and replay.
	since, failedSince string
	failedOnly         bool
	limit              int
}

// tenantFlag is --tenant, with the help of the command.
func (w *webhooksCmd) tenantFlag(fs *flag.FlagSet, help string) {
	fs.StringVar(&w.rnc, "tenant", "", help)
}

// endpointFlags are the flags of a command on one endpoint.
func (w *webhooksCmd) endpointFlags(fs *flag.FlagSet) {
	fs.StringVar(&w.endpointID, "endpoint", "", "the endpoint's id (see sello webhooks list)")
	w.tenantFlag(fs, "the endpoint's tenant (RNC); found from the id when omitted")
}

// secretFlags choose a new signing secret (chooseSecret).
func (w *webhooksCmd) secretFlags(fs *flag.FlagSet) {
	fs.StringVar(&w.secret, "secret", "", fmt.Sprintf("the signing secret, %d to %d printable characters (prefer --generate-secret: a flag shows in the process list)", sello.MinWebhookSecretLen, sello.MaxWebhookSecretLen))
	fs.BoolVar(&w.generate, "generate-secret", false, "generate the secret and print it once")
}

// sinceHelp ends the help of a flag parseSince reads.
const sinceHelp = "an RFC 3339 time, a date (yyyy-MM-dd, in the DR) or a duration ago (24h)"

// printSecret prints a generated secret, once, on stdout.
func (w *webhooksCmd) printSecret(stdout io.Writer, plaintext string) {
	fmt.Fprintln(stdout, plaintext)
	fmt.Fprintln(w.stderr, "the secret is shown once: store it with the receiver now")
}

func (w *webhooksCmd) addFlags(fs *flag.FlagSet) {
	w.tenantFlag(fs, "the tenant's RNC")
	fs.StringVar(&w.envName, "env", "", "environment: TesteCF, CerteCF or eCF")
	fs.StringVar(&w.url, "url", "", "the receiver's URL: https:// (http:// also outside eCF)")
	w.secretFlags(fs)
	fs.StringVar(&w.events, "events", "", "comma-separated event types to send; all when omitted")
	fs.BoolVar(&w.allowLoopback, "allow-loopback", false, "accept a URL on this machine (127.0.0.1, localhost) for tests and demos; never in eCF")
}

// add is `sello webhooks add`: it prints the new endpoint's id (and the
// generated secret).
func (w *webhooksCmd) add(ctx context.Context, st *storage, stdout io.Writer) error {
	if err := requiredFlags("tenant", w.rnc, "env", w.envName, "url", w.url); err != nil {
		return err
	}
	plaintext, err := chooseSecret(w.secret, w.generate)
	if err != nil {
		return err
	}
	t, env, err := findTenantEnv(ctx, st, w.rnc, w.envName)
	if err != nil {
		return err
	}
	url, err := normalizeEndpointURL(w.url, env, w.allowLoopback)
	if err != nil {
		return err
	}
	types, err := parseEventTypes(w.events)
	if err != nil {
		return err
	}
	mk, err := st.flags.masterKey(w.getenv, false)
	if err != nil {
		return err
	}
	e, err := sello.NewWebhookEndpoint(mk, t.ID, env, url, types, plaintext)
	if err != nil {
		return err
	}
	if err := st.CreateWebhookEndpoint(ctx, e); err != nil {
		return err
	}
	fmt.Fprintln(stdout, e.ID)
	if w.generate {
		w.printSecret(stdout, plaintext)
	}
	return nil
}

func (w *webhooksCmd) listFlags(fs *flag.FlagSet) {
	w.tenantFlag(fs, "the tenant's RNC; every tenant when omitted")
	fs.StringVar(&w.envName, "env", "", "environment: TesteCF, CerteCF or eCF; all when omitted")
}

// list is `sello webhooks list`: a table of the endpoints.
func (w *webhooksCmd) list(ctx context.Context, st *storage, stdout io.Writer) error {
	tenants, err := tenantsOf(ctx, st, w.rnc)
	if err != nil {
		return err
	}
	envs, err := environmentsOf(w.envName)
	if err != nil {
		return err
	}
	now := time.Now()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\ttenant\tenvironment\tstatus\turl\tevents\tsecrets\tfailingSince\tcreatedAt\tdisabledReason")
	for _, t := range tenants {
		for _, env := range envs {
			es, err := st.FindWebhookEndpoints(ctx, t.ID, env)
			if err != nil {
				return err
			}
			for _, e := range es {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", e.ID, t.RNC, e.Environment, e.Status, e.URL,
					eventList(e.Events), len(e.SigningSecrets(now)), timeOrDash(e.FailingSince), sello.FormatTime(e.CreatedAt), orDash(e.DisabledReason))
			}
		}
	}
	return tw.Flush()
}

// pause is `sello webhooks pause`.
func (w *webhooksCmd) pause(ctx context.Context, st *storage, stdout io.Writer) error {
	t, e, err := findEndpoint(ctx, st, w.rnc, w.endpointID)
	if err != nil {
		return err
	}
	if err := st.PauseWebhookEndpoint(ctx, t.ID, e.ID); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s paused: new deliveries are held until sello webhooks resume\n", e.ID)
	return nil
}

// resume is `sello webhooks resume`.
func (w *webhooksCmd) resume(ctx context.Context, st *storage, stdout io.Writer) error {
	t, e, err := findEndpoint(ctx, st, w.rnc, w.endpointID)
	if err != nil {
		return err
	}
	n, err := st.ResumeWebhookEndpoint(ctx, t.ID, e.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s active: %d held deliveries queued\n", e.ID, n)
	if e.Status == sello.WebhookEndpointDisabled {
		fmt.Fprintf(w.stderr, "the endpoint was disabled (%s); its failed deliveries can be sent again with sello webhooks replay --failed-since T --endpoint %s\n", e.DisabledReason, e.ID)
	}
	return nil
}

// delete is `sello webhooks delete`.
func (w *webhooksCmd) delete(ctx context.Context, st *storage, stdout io.Writer) error {
	t, e, err := findEndpoint(ctx, st, w.rnc, w.endpointID)
	if err != nil {
		return err
	}
	if err := st.DeleteWebhookEndpoint(ctx, t.ID, e.ID, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s deleted: no more deliveries; its pending and held ones failed, and its delivery log stays for %d days\n", e.ID, int(sello.EventRetention/(24*time.Hour)))
	return nil
}

func (w *webhooksCmd) rotateSecretFlags(fs *flag.FlagSet) {
	w.endpointFlags(fs)
	w.secretFlags(fs)
	fs.DurationVar(&w.overlap, "overlap", sello.WebhookSecretOverlap, "how long the current secrets keep signing beside the new one (0: stop at once)")
}

// rotateSecret is `sello webhooks rotate-secret`: it prints the generated
// secret, or the endpoint's id.
func (w *webhooksCmd) rotateSecret(ctx context.Context, st *storage, stdout io.Writer) error {
	plaintext, err := chooseSecret(w.secret, w.generate)
	if err != nil {
		return err
	}
	t, e, err := findEndpoint(ctx, st, w.rnc, w.endpointID)
	if err != nil {
		return err
	}
	mk, err := st.flags.masterKey(w.getenv, false)
	if err != nil {
		return err
	}
	s, err := sello.NewWebhookSecret(mk, e.ID, plaintext)
	if err != nil {
		return err
	}
	now := time.Now()
	if err := st.RotateWebhookSecret(ctx, t.ID, e.ID, s, w.overlap, now); err != nil {
		return err
	}
	if w.generate {
		w.printSecret(stdout, plaintext)
	} else {
		fmt.Fprintln(stdout, e.ID)
	}
	if w.overlap > 0 {
		fmt.Fprintf(w.stderr, "the previous secret signs too until %s\n", sello.FormatTime(now.Add(w.overlap)))
	}
	return nil
}

func (w *webhooksCmd) testFlags(fs *flag.FlagSet) {
	w.endpointFlags(fs)
	fs.BoolVar(&w.wait, "wait", false, "wait for the first delivery attempt (made by sello serve) and print its result; exit 1 if it failed")
	fs.DurationVar(&w.waitTimeout, "timeout", 30*time.Second, "with --wait: how long to wait for the attempt")
}

// test is `sello webhooks test`: it prints the test delivery's id and,
// with --wait, its first attempt.
func (w *webhooksCmd) test(ctx context.Context, st *storage, stdout io.Writer) error {
	t, e, err := findEndpoint(ctx, st, w.rnc, w.endpointID)
	if err != nil {
		return err
	}
	d, err := st.CreateTestWebhookDelivery(ctx, t.ID, e.ID, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, d.ID)
	if d.Status == sello.WebhookHeld {
		if w.wait {
			return sello.Errorf(sello.CodeConflict, "The endpoint is paused: the test event is held until sello webhooks resume, so there is no attempt to wait for.")
		}
		fmt.Fprintln(w.stderr, "the endpoint is paused: the test event is held until sello webhooks resume")
	}
	if !w.wait {
		return nil
	}
	a, err := waitFirstAttempt(ctx, st, d, w.waitTimeout)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, describeAttempt(a))
	if a.ErrorClass != "" {
		return fmt.Errorf("the endpoint did not accept the test event (sello webhooks attempts --delivery %s shows the attempts)", d.ID)
	}
	return nil
}

func (w *webhooksCmd) deliveriesFlags(fs *flag.FlagSet) {
	w.tenantFlag(fs, "the tenant's RNC (or give --endpoint)")
	fs.StringVar(&w.envName, "env", "", "environment: TesteCF, CerteCF or eCF; all when omitted")
	fs.StringVar(&w.endpointID, "endpoint", "", "only this endpoint's deliveries")
	fs.BoolVar(&w.failedOnly, "failed", false, "only failed deliveries")
	fs.StringVar(&w.since, "since", "", "only deliveries created since: "+sinceHelp)
	fs.IntVar(&w.limit, "limit", sello.DefaultPageSize, fmt.Sprintf("at most this many, newest first (up to %d)", sello.MaxPageSize))
}

// deliveries is `sello webhooks deliveries`: a table of the deliveries,
// newest first, across the environments in scope.
func (w *webhooksCmd) deliveries(ctx context.Context, st *storage, stdout io.Writer) error {
	f := sello.WebhookDeliveryFilter{EndpointID: w.endpointID, FailedOnly: w.failedOnly, Limit: min(max(w.limit, 1), sello.MaxPageSize)}
	if w.since != "" {
		var err error
		if f.Since, err = parseSince("since", w.since, time.Now()); err != nil {
			return err
		}
	}
	t, envs, err := deliveryScope(ctx, st, w.rnc, w.envName, w.endpointID)
	if err != nil {
		return err
	}
	var ds []*sello.WebhookDelivery
	for _, env := range envs {
		page, err := st.ListWebhookDeliveries(ctx, t.ID, env, f)
		if err != nil {
			return err
		}
		ds = append(ds, page...)
	}
	slices.SortStableFunc(ds, func(a, b *sello.WebhookDelivery) int { return b.CreatedAt.Compare(a.CreatedAt) })
	ds = ds[:min(len(ds), f.Limit)]
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tcreatedAt\tenvironment\teventType\tstatus\tattempts\terrorClass\tnextAttemptAt\ttrigger\tlastError")
	for _, d := range ds {
		class, err := lastErrorClass(ctx, st, d)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", d.ID, sello.FormatTime(d.CreatedAt), d.Environment, d.EventType, d.Status,
			d.Attempts, orDash(class), timeOrDash(d.NextAttemptAt), d.Trigger, orDash(truncate(d.LastError, 80)))
	}
	return tw.Flush()
}

func (w *webhooksCmd) attemptsFlags(fs *flag.FlagSet) {
	fs.StringVar(&w.deliveryID, "delivery", "", "the delivery's id (see sello webhooks deliveries)")
	w.tenantFlag(fs, "the delivery's tenant (RNC); found from the id when omitted")
}

// attempts is `sello webhooks attempts`: one delivery and a table of its
// attempts.
func (w *webhooksCmd) attempts(ctx context.Context, st *storage, stdout io.Writer) error {
	t, err := findDeliveryTenant(ctx, st, w.rnc, w.deliveryID)
	if err != nil {
		return err
	}
	d, err := st.FindWebhookDelivery(ctx, t.ID, w.deliveryID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "delivery %s: %s %s to endpoint %s, %s after %d attempts\n", d.ID, d.EventType, d.EventID, d.EndpointID, d.Status, d.Attempts)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "n\tat\tresponseStatus\tlatency\tdialedIp\terrorClass\terror\tresponseBody")
	for _, a := range d.AttemptLog {
		status := "-"
		if a.ResponseStatus != 0 {
			status = fmt.Sprint(a.ResponseStatus)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%q\n", a.N, sello.FormatTime(a.At), status, a.Latency.Round(time.Microsecond),
			orDash(a.DialedIP), orDash(a.ErrorClass), orDash(a.Error), truncate(string(a.ResponseBody), 80))
	}
	return tw.Flush()
}

func (w *webhooksCmd) replayFlags(fs *flag.FlagSet) {
	fs.StringVar(&w.deliveryID, "delivery", "", "replay this delivery (whatever its status)")
	fs.StringVar(&w.failedSince, "failed-since", "", "replay every failed delivery created since: "+sinceHelp)
	fs.StringVar(&w.endpointID, "endpoint", "", "with --failed-since: only this endpoint's")
	w.tenantFlag(fs, "the tenant's RNC (with --failed-since, unless --endpoint is given)")
	fs.StringVar(&w.envName, "env", "", "with --failed-since: environment: TesteCF, CerteCF or eCF; all when omitted")
}

// replay is `sello webhooks replay`: of one delivery (--delivery) or of
// the failed ones (--failed-since).
func (w *webhooksCmd) replay(ctx context.Context, st *storage, stdout io.Writer) error {
	switch {
	case w.deliveryID != "" && w.failedSince != "":
		return usageError{"give --delivery or --failed-since, not both"}
	case w.deliveryID != "":
		return w.replayDelivery(ctx, st, stdout)
	case w.failedSince == "":
		return usageError{"give --delivery ID or --failed-since T"}
	}
	return w.replayFailed(ctx, st, stdout)
}

// replayDelivery prints the id of the new delivery.
func (w *webhooksCmd) replayDelivery(ctx context.Context, st *storage, stdout io.Writer) error {
	t, err := findDeliveryTenant(ctx, st, w.rnc, w.deliveryID)
	if err != nil {
		return err
	}
	d, err := st.ReplayWebhookDelivery(ctx, t.ID, w.deliveryID, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, d.ID)
	if d.Status == sello.WebhookHeld {
		fmt.Fprintln(w.stderr, "the endpoint is paused: the replay is held until sello webhooks resume")
	}
	return nil
}

// replayFailed prints how many failed deliveries it replayed.
func (w *webhooksCmd) replayFailed(ctx context.Context, st *storage, stdout io.Writer) error {
	now := time.Now()
	from, err := parseSince("failed-since", w.failedSince, now)
	if err != nil {
		return err
	}
	t, envs, err := deliveryScope(ctx, st, w.rnc, w.envName, w.endpointID)
	if err != nil {
		return err
	}
	n := 0
	for _, env := range envs {
		k, err := st.ReplayFailedWebhookDeliveries(ctx, t.ID, env, w.endpointID, from, now)
		if err != nil {
			return err
		}
		n += k
	}
	fmt.Fprintf(stdout, "%d failed deliveries since %s replayed\n", n, sello.FormatTime(from))
	return nil
}

// waitPoll is how often waitFirstAttempt reads the delivery.
const waitPoll = 100 * time.Millisecond

// waitFirstAttempt waits until the delivery d has an attempt, at most
// timeout, and returns the first. Deliveries are made by the workers of
// sello serve on the same storage. Returns an error when none comes in
// time, or when d ends without one (its endpoint deleted or disabled
// meanwhile).
func waitFirstAttempt(ctx context.Context, st *storage, d *sello.WebhookDelivery, timeout time.Duration) (*sello.WebhookAttempt, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		full, err := st.FindWebhookDelivery(ctx, d.TenantID, d.ID)
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, err
		case err == nil && len(full.AttemptLog) > 0:
			return full.AttemptLog[0], nil
		case err == nil && full.Status == sello.WebhookFailed:
			return nil, fmt.Errorf("delivery %s failed without an attempt: %s", d.ID, full.LastError)
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return nil, fmt.Errorf("no delivery attempt within %s: deliveries are made by sello serve; is one running on this storage (%s)?", timeout, st.desc)
			}
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// describeAttempt is one line on an attempt: its HTTP status and latency,
// or why it failed.
func describeAttempt(a *sello.WebhookAttempt) string {
	what := "succeeded"
	if a.ErrorClass != "" {
		what = "failed: " + a.ErrorClass
		if a.Error != "" {
			what += ": " + a.Error
		}
	}
	status := "no answer"
	if a.ResponseStatus != 0 {
		status = fmt.Sprintf("HTTP %d", a.ResponseStatus)
	}
	return fmt.Sprintf("attempt %d %s: %s in %s, dialed %s", a.N, what, status, a.Latency.Round(time.Millisecond), orDash(a.DialedIP))
}

// requiredFlags returns a usage error naming the first empty flag of the
// name, value pairs.
func requiredFlags(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return usageError{fmt.Sprintf("--%s is required", pairs[i])}
		}
	}
	return nil
}

// chooseSecret returns the secret to store: a generated one, or the one
// given. Exactly one of --secret and --generate-secret must be given; the
// given secret is checked where it is sealed (sello.NewWebhookSecret).
func chooseSecret(secret string, generate bool) (string, error) {
	switch {
	case secret != "" && generate:
		return "", usageError{"give --secret or --generate-secret, not both"}
	case generate:
		return sello.GenerateWebhookSecret(), nil
	case secret == "":
		return "", usageError{"--secret or --generate-secret is required"}
	}
	return secret, nil
}

// normalizeEndpointURL applies webhook.NormalizeURL and returns the URL to
// store (its host in IDNA ASCII form): https:// in eCF, and loopback hosts
// only with --allow-loopback, which eCF refuses. Returns INVALID_REQUEST.
func normalizeEndpointURL(url string, env sello.Environment, allowLoopback bool) (string, error) {
	prod := env == sello.EnvProd
	if allowLoopback && prod {
		return "", sello.Errorf(sello.CodeInvalidRequest, "--allow-loopback does not apply to eCF: production webhooks go only to public https:// URLs.")
	}
	norm, err := webhook.NormalizeURL(url, prod, allowLoopback)
	if err != nil && !allowLoopback && !prod {
		if _, err2 := webhook.NormalizeURL(url, prod, true); err2 == nil {
			return "", sello.Errorf(sello.CodeInvalidRequest, "%s For a receiver on this machine (tests, demos) add --allow-loopback, and run sello serve with --allow-loopback-webhooks or --demo.", sello.ErrorText(err))
		}
	}
	return norm, err
}

// parseEventTypes reads --events. Returns INVALID_REQUEST for an unknown
// type.
func parseEventTypes(s string) ([]sello.EventType, error) {
	var types []sello.EventType
	for part := range strings.SplitSeq(s, ",") {
		t := sello.EventType(strings.TrimSpace(part))
		if t == "" {
			continue
		}
		if !slices.Contains(sello.WebhookEventTypes, t) {
			names := make([]string, len(sello.WebhookEventTypes))
			for i, w := range sello.WebhookEventTypes {
				names[i] = string(w)
			}
			return nil, sello.Errorf(sello.CodeInvalidRequest, "Unknown event type %q: use %s.", t, strings.Join(names, ", "))
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	return types, nil
}

// parseSince reads a point in time: RFC 3339, a date (the start of that
// day in the DR), or a duration before now.
func parseSince(flagName, s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if d, err := sello.ParseDate(s); err == nil {
		return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, sello.DRZone), nil
	}
	return time.Time{}, usageError{fmt.Sprintf("--%s %q: give an RFC 3339 time (2026-01-31T08:00:00Z), a date (2026-01-31) or a duration ago (24h)", flagName, s)}
}

// tenantsOf is the tenant --tenant names, or every tenant.
func tenantsOf(ctx context.Context, st *storage, rnc string) ([]*sello.Tenant, error) {
	if rnc == "" {
		return st.FindTenants(ctx)
	}
	t, err := findTenant(ctx, st, rnc)
	if err != nil {
		return nil, err
	}
	return []*sello.Tenant{t}, nil
}

// environmentsOf is the environment --env names, or all of them.
func environmentsOf(name string) ([]sello.Environment, error) {
	if name == "" {
		return sello.Environments, nil
	}
	env, err := sello.ParseEnvironmentAnyCase(name)
	if err != nil {
		return nil, err
	}
	return []sello.Environment{env}, nil
}

// findEndpoint finds an endpoint by id, with its tenant: the one --tenant
// names, which must own it, or else the endpoint's own. Returns NOT_FOUND.
func findEndpoint(ctx context.Context, st *storage, rnc, id string) (*sello.Tenant, *sello.WebhookEndpoint, error) {
	if err := requiredFlags("endpoint", id); err != nil {
		return nil, nil, err
	}
	var t *sello.Tenant
	if rnc != "" {
		var err error
		if t, err = findTenant(ctx, st, rnc); err != nil {
			return nil, nil, err
		}
	}
	e, err := st.FindWebhookEndpointByID(ctx, id)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound || err == nil && t != nil && t.ID != e.TenantID {
		return nil, nil, sello.Errorf(sello.CodeNotFound, "No webhook endpoint has id %s (see sello webhooks list).", id)
	} else if err != nil {
		return nil, nil, err
	}
	if t == nil {
		t, err = st.FindTenantByID(ctx, e.TenantID)
	}
	return t, e, err
}

// findDeliveryTenant finds the tenant of a delivery, checking it against
// --tenant when given. Returns NOT_FOUND.
func findDeliveryTenant(ctx context.Context, st *storage, rnc, id string) (*sello.Tenant, error) {
	if err := requiredFlags("delivery", id); err != nil {
		return nil, err
	}
	notFound := sello.Errorf(sello.CodeNotFound, "No webhook delivery has id %s (see sello webhooks deliveries).", id)
	w, err := st.FindWebhookWork(ctx, id)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return nil, notFound
	} else if err != nil {
		return nil, err
	}
	if rnc != "" {
		t, err := findTenant(ctx, st, rnc)
		if err != nil {
			return nil, err
		} else if t.ID != w.Delivery.TenantID {
			return nil, notFound
		}
		return t, nil
	}
	return st.FindTenantByID(ctx, w.Delivery.TenantID)
}

// deliveryScope is the tenant and environments whose deliveries a command
// reads: the endpoint's, or the --tenant's in --env (all when omitted).
func deliveryScope(ctx context.Context, st *storage, rnc, envName, endpointID string) (*sello.Tenant, []sello.Environment, error) {
	if endpointID != "" {
		t, e, err := findEndpoint(ctx, st, rnc, endpointID)
		if err != nil {
			return nil, nil, err
		}
		return t, []sello.Environment{e.Environment}, nil
	}
	t, err := findTenant(ctx, st, rnc)
	if err != nil {
		return nil, nil, err
	}
	envs, err := environmentsOf(envName)
	return t, envs, err
}

// lastErrorClass is the error class of a delivery's last attempt; "" when
// it succeeded or was never attempted.
func lastErrorClass(ctx context.Context, st *storage, d *sello.WebhookDelivery) (string, error) {
	if d.Attempts == 0 || d.Status == sello.WebhookSucceeded {
		return "", nil
	}
	full, err := st.FindWebhookDelivery(ctx, d.TenantID, d.ID)
	if err != nil || len(full.AttemptLog) == 0 {
		return "", err
	}
	return full.AttemptLog[len(full.AttemptLog)-1].ErrorClass, nil
}

func eventList(ts []sello.EventType) string {
	if len(ts) == 0 {
		return "all"
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = string(t)
	}
	return strings.Join(names, ",")
}

// truncate shortens s to n characters for a table cell.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
