package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/internal/tracing"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/worker"
)

// The stop's bounds (docs/lifecycle.md, "Stopping"). --shutdown-timeout
// (default 30 s) bounds, on its own clock each, the wait for in-flight
// requests and the wait for running jobs; then:
const (
	// handlerGrace is how long the handlers of connections cut at the
	// timeout have to return before the store closes (their reads and
	// writes fail at once).
	handlerGrace = 5 * time.Second
	// cancelJobsTimeout is how long jobs still running at the timeout have
	// to return once their contexts are cancelled.
	cancelJobsTimeout = 10 * time.Second
)

// Request timeouts. A body arrives within readTimeout of the request's
// start (the largest, 2 MiB, needs ~17 KB/s), and the answer within
// writeTimeout of the header's end: a minute more than any body may take,
// so that a request whose body came in time, or that timed out reading it
// (400 INVALID_REQUEST), still gets its answer.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 2 * time.Minute
	writeTimeout      = 3 * time.Minute
	idleTimeout       = 2 * time.Minute
)

// defaultGCPercent is the server's GOGC unless the environment sets one
// (which the runtime has applied already). Sello's live heap is small (tens
// of MB) and its garbage is many short-lived buffers (JSON, XML, HTTP): a
// collector that runs less often costs less CPU for a little more peak
// memory (the figures are in docs/benchmarks.md).
const defaultGCPercent = 300

// runServe runs the API until ctx ends, then stops (see stop).
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sello serve", flag.ContinueOnError)
	sf := storageFlags{stderr: stderr}
	sf.register(fs, getenv)
	addr := fs.String("addr", envOr(getenv, "SELLO_ADDR", "127.0.0.1:8080"), "address to listen on (env SELLO_ADDR)")
	demo := fs.Bool("demo", false, "create a demo tenant with sequences and keys on first start")
	logFormat := fs.String("log-format", envOr(getenv, "SELLO_LOG_FORMAT", "text"), "log format on stderr: text or json (env SELLO_LOG_FORMAT)")
	logLevel := fs.String("log-level", envOr(getenv, "SELLO_LOG_LEVEL", "info"), "least level logged: debug, info, warn or error; debug adds a line per job run (env SELLO_LOG_LEVEL)")
	otlpEndpoint := fs.String("otlp-endpoint", getenv(tracing.EndpointEnv), "export traces over OTLP/HTTP to this collector, e.g. http://localhost:4318 (/v1/traces is added to a URL without a path); off by default (env "+tracing.EndpointEnv+"; docs/tracing.md)")
	var df dgiiFlags
	df.register(fs, getenv)
	workers := fs.Int("workers", 4096, "jobs worked at once (signing, DGII calls; most of a job is waiting for DGII, in process while it validates a document)")
	debugAddr := fs.String("debug-addr", "", "serve Go's profiler (net/http/pprof) and the Prometheus metrics (/metrics; docs/metrics.md) on this address, e.g. 127.0.0.1:6060; off by default")
	tenantLabels := fs.Bool("metrics-tenant-labels", false, "with --debug-addr: add the per-tenant gauges of certificate expiry and e-NCF numbers left, one series per tenant (docs/metrics.md)")
	rescueAfter := fs.Duration("job-rescue-after", 2*time.Minute, "how long a job may run before it is deemed interrupted and run again")
	deliveryRetry := fs.Duration("delivery-first-retry", sello.DeliveryRetryDelay(1), "wait before the first retry of a delivery to a buyer or of a commercial approval; the later waits of the schedule (docs/lifecycle.md) scale with it")
	allowLoopback := fs.Bool("allow-loopback-webhooks", false, "let webhooks of TesteCF and CerteCF endpoints reach receivers on this machine (127.0.0.0/8, ::1), for tests and demos; never eCF's; --demo turns it on")
	shutdownTimeout := fs.Duration("shutdown-timeout", 30*time.Second, "on SIGINT/SIGTERM, how long in-flight requests may take to finish before their connections are cut, and then running jobs (env SELLO_SHUTDOWN_TIMEOUT)")
	fs.IntVar(&sf.maxConns, "db-max-conns", 0, "PostgreSQL only: connections of the store's pool, used by the API and the jobs' work (default: the URL's pool_max_conns, else 20) (env SELLO_DB_MAX_CONNS)")
	fs.IntVar(&sf.jobsMaxConns, "jobs-db-max-conns", 0, fmt.Sprintf("PostgreSQL only: connections of the job runner's own pool, at least %d (default %d) (env SELLO_JOBS_DB_MAX_CONNS)", postgres.MinJobsMaxConns, postgres.DefaultJobsMaxConns))
	lowPercent := fs.Int64("sequence-low-percent", sello.DefaultSequenceThresholds.LowPercent, "sequence.low fires when a range's numbers left fall to this percent of it, or to --sequence-low-count, whichever comes first")
	lowCount := fs.Int64("sequence-low-count", sello.DefaultSequenceThresholds.LowCount, "sequence.low fires when a range has this many numbers left, or --sequence-low-percent, whichever comes first")
	expiryWarning := fs.Duration("sequence-expiry-warning", sello.DefaultSequenceThresholds.ExpiryWarning, "how long before a range's expiry sequence.expiring fires (counted in days)")
	if err := setFromEnv(fs, getenv, "shutdown-timeout", "SELLO_SHUTDOWN_TIMEOUT", "db-max-conns", "SELLO_DB_MAX_CONNS", "jobs-db-max-conns", "SELLO_JOBS_DB_MAX_CONNS"); err != nil {
		return err
	}
	contingencyAfter := fs.Duration("contingency-after", sello.DefaultContingencyAfter, "how long DGII must fail every call in an environment before it enters contingency: dgii.unavailable, documents marked contingency and sent oldest first when DGII returns (env SELLO_CONTINGENCY_AFTER)")
	if err := setFromEnv(fs, getenv, "contingency-after", "SELLO_CONTINGENCY_AFTER"); err != nil {
		return err
	}
	var rf receiverFlags
	rf.register(fs)
	if err := setFromEnv(fs, getenv, receiverEnv...); err != nil {
		return err
	}
	portalURL := fs.String("portal-url", getenv("SELLO_PORTAL_URL"), "the portal's public address, e.g. https://sello.example.com: its one-time links start with it, and https names the session cookie __Host-sello_session; default http://ADDR (env SELLO_PORTAL_URL; docs/portal.md)")
	trustRoots := fs.String("receiver-trust-roots", getenv("SELLO_RECEIVER_TRUST_ROOTS"), "PEM bundle of the CAs (INDOTEL-accredited, their issuing CAs included) whose certificates the tenants' receivers trust: in eCF a signer that does not chain to them is refused; without it every signer is recorded trusted: false (env SELLO_RECEIVER_TRUST_ROOTS; docs/receptor.md)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := checkServeFlags(fs, &sf, *shutdownTimeout); err != nil {
		return err
	}
	if *tenantLabels && *debugAddr == "" {
		return usageError{"--metrics-tenant-labels adds metrics, served only on --debug-addr: give it too"}
	}
	receiverLimits, trustedProxies, err := rf.parse()
	if err != nil {
		return err
	}
	if *deliveryRetry <= 0 {
		return usageError{"--delivery-first-retry must be positive"}
	}
	if *lowPercent < 1 || *lowPercent > 100 {
		return usageError{fmt.Sprintf("--sequence-low-percent must be 1–100, not %d", *lowPercent)}
	} else if *lowCount < 1 {
		return usageError{fmt.Sprintf("--sequence-low-count must be at least 1, not %d", *lowCount)}
	} else if *expiryWarning <= 0 {
		return usageError{fmt.Sprintf("--sequence-expiry-warning must be positive, not %s", *expiryWarning)}
	}
	if *contingencyAfter <= 0 || *contingencyAfter > 24*time.Hour {
		return usageError{fmt.Sprintf("--contingency-after must be positive and at most 24h (DGII's deadline for e-CFs issued in contingency is 72 h), not %s", *contingencyAfter)}
	}
	roots, err := readTrustRoots(*trustRoots)
	if err != nil {
		return err
	}
	logger, err := newLogger(*logFormat, *logLevel, stderr)
	if err != nil {
		return err
	}
	if *otlpEndpoint != "" {
		if _, err := tracing.ParseEndpoint(*otlpEndpoint); err != nil {
			return usageError{"--otlp-endpoint: " + err.Error()}
		}
	}
	traces, err := tracing.New(ctx, tracing.Config{Endpoint: *otlpEndpoint, Version: version})
	if err != nil {
		return err
	}
	// Registered first, run last: the spans of the stop are flushed too.
	defer flushTraces(traces, logger)
	if traces.Enabled() {
		logger.Info("exporting traces", "otlp_endpoint", *otlpEndpoint)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}

	mk, err := sf.masterKey(getenv, *demo)
	if err != nil {
		return err
	}
	st, err := sf.open(ctx, true)
	if err != nil {
		return err
	}
	defer st.Close()
	// The metrics exist only where they are served (--debug-addr); nil
	// observes nothing.
	var m *metrics.Metrics
	if *debugAddr != "" {
		m = metrics.New(metrics.Options{Version: version, TenantLabels: *tenantLabels})
		st.observeCommits(m.Commit)
		m.WatchStore(metrics.Source{Reachability: st.FindReachability, CountJobs: st.countJobs})
	}
	pruner, _ := st.limiter.(bucketPruner)
	st.limiter = m.RateLimiter(st.limiter)
	// The in-process simulator's directory answers for this server's own
	// tenants: their receivers are this server, once it listens
	// (docs/receptor.md), so one tenant's e-CFs reach another in process.
	var self atomic.Pointer[string]
	receivers := func(env sello.Environment, rnc string) (name, base string, ok bool) {
		u := self.Load()
		if u == nil {
			return "", "", false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		t, err := st.FindTenantByRNC(ctx, rnc)
		if err != nil {
			return "", "", false
		}
		return t.Name, *u + "/" + string(env) + "/receptor/" + rnc, true
	}
	urls, dgiiDesc, stopSim, err := df.start(logger, receivers)
	if err != nil {
		return err
	}
	defer stopSim(context.Background())
	if *demo {
		ca, err := sf.demoCA()
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if roots == nil {
			roots = sello.NewTrustRoots()
		}
		roots.Add(ca.cert)
		if err := seedDemo(ctx, st, mk, ca, df.simulated(), time.Now(), stdout, stderr); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		logger.Warn("the receivers trust the demo CA (--demo): never serve real taxpayers with it", "demo_ca", filepath.Join(sf.data, demoCAFile))
	}
	if roots == nil {
		logger.Warn("no receiver trust roots (--receiver-trust-roots): eCF receivers cannot tell a stranger from a supplier; every received signature is recorded trusted: false")
	} else {
		logger.Info("receiver trust roots", "count", len(roots.Names()), "subjects", roots.Names())
	}

	if *demo {
		*allowLoopback = true
	}
	if *allowLoopback {
		logger.Warn("webhooks of TesteCF and CerteCF endpoints may reach loopback receivers (--allow-loopback-webhooks); eCF's never do")
	}
	bi := buildInfo()
	wk := worker.New(worker.Config{
		Store:     st,
		DGII:      dgii.New(dgii.Config{URLs: urls, HTTPClient: &http.Client{Timeout: df.timeout, Transport: dgii.NewTransport()}, OnCall: dgiiObserver(m)}),
		Metrics:   m,
		MasterKey: mk,
		Logger:    logger.With("component", "worker"),
		Webhooks:  webhook.Options{AllowLoopback: *allowLoopback},
		Version:   bi.version,
		SequenceThresholds: sello.SequenceThresholds{
			LowPercent: *lowPercent, LowCount: *lowCount, ExpiryWarning: *expiryWarning,
		},
		ContingencyAfter: *contingencyAfter,
		DeliveryDelay: func(n int) time.Duration {
			return time.Duration(float64(sello.DeliveryRetryDelay(n)) * float64(*deliveryRetry) / float64(sello.DeliveryRetryDelay(1)))
		},
	})
	defer wk.Close()
	runner, err := st.newJobRunner(wk.Workers(), jobs.Config{
		Workers:     *workers,
		Logger:      logger.With("component", "jobs"),
		JobTimeout:  min(time.Minute, *rescueAfter/2),
		RescueAfter: *rescueAfter,
		Periodic:    wk.Periodic(),
		Middleware:  m.JobMiddleware(),

		TracerProvider: traces.TracerProvider(),
	})
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	if err := runner.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start jobs: %w", err)
	}

	if *debugAddr != "" {
		stopDebug, err := serveDebug(*debugAddr, m, logger, stdout)
		if err != nil {
			return err
		}
		defer stopDebug()
	}

	srv := &api.Server{Store: st, RateLimiter: st.limiter, MasterKey: mk, ReceiverTrust: roots, Logger: logger, Ready: st.ready,
		ReceiverLimits: receiverLimits, TrustedProxies: trustedProxies, Metrics: m,
		TracerProvider: traces.TracerProvider()}
	if pruner != nil {
		defer startPruning(pruner, logger)()
	}
	if k, ok := st.Store.(statsKeeper); ok {
		defer startStats(k, logger)()
	}
	var logins []demoLogin
	if *demo {
		if logins, err = demoLogins(ctx, st, mk); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	ps, err := newPortal(*portalURL, ln.Addr().String(), *demo, st, mk, trustedProxies, logger)
	if err != nil {
		ln.Close()
		return err
	}
	// The portal accepts loopback webhook URLs where the workers deliver
	// to them (never eCF's).
	ps.AllowLoopbackWebhooks = *allowLoopback
	// The Receptor page lists the roots the receivers trust.
	ps.ReceiverTrust = roots
	// Inicio shows a range as running out when the worker warns of it.
	ps.SequenceThresholds = sello.SequenceThresholds{LowPercent: *lowPercent, LowCount: *lowCount, ExpiryWarning: *expiryWarning}
	ps.Metrics = m
	var conns connCounter
	hs := &http.Server{
		Handler:           conns.handler(siteHandler(srv.Handler(), ps.Handler())),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ConnState:         conns.track,
	}
	logger.Info("serving", append([]any{"addr", ln.Addr().String(), "storage", st.desc, "dgii", dgiiDesc, "version", bi.version, "commit", bi.commit}, poolAttrs(st)...)...)
	selfURL := "http://" + ln.Addr().String()
	self.Store(&selfURL)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	fmt.Fprintf(stdout, "portal %s/\n", strings.TrimRight(ps.URL.String(), "/"))
	for _, l := range logins {
		fmt.Fprintf(stdout, "demo login %s %s %s\n", l.rnc, l.email, l.password)
	}

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	if err := stop(hs, errc, &conns, wk, runner, *shutdownTimeout, logger); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// stop stops the server in order, each step bounded, so that the store
// closes (when runServe returns) only once nothing uses it:
//
//  1. The listener closes and in-flight requests finish, for up to
//     timeout; then the connections still open (a client still sending its
//     body, an answer still being written) are cut, and their handlers have
//     handlerGrace to return.
//  2. The workers drain: jobs waiting in process for DGII's verdict snooze
//     instead, so that the stop never waits for DGII.
//  3. The job runner stops fetching and waits for the running jobs, for up
//     to timeout on its own clock; then it cancels them and waits
//     cancelJobsTimeout more. A job cut off is run again later (at the next
//     start, or on another node, after --job-rescue-after).
//
// It returns an error only when jobs outlive their cancellation.
func stop(hs *http.Server, errc <-chan error, conns *connCounter, wk *worker.Worker, runner jobs.Runner, timeout time.Duration, logger *slog.Logger) error {
	logger.Info("shutting down: finishing in-flight requests", "timeout", timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := hs.Shutdown(ctx)
	cancel()
	if err != nil {
		open := conns.open()
		hs.Close()
		logger.Warn("shutdown timeout passed: cut the connections still open", "connections", open, "timeout", timeout, "reason", err)
		if !conns.wait(handlerGrace) {
			logger.Warn("handlers still running after their connections were cut", "handlers", conns.handling(), "waited", handlerGrace)
		}
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		logger.Error("serve", "err", err)
	}

	wk.Drain()
	logger.Info("workers drained")

	ctx, cancel = context.WithTimeout(context.Background(), timeout)
	err = runner.Stop(ctx)
	cancel()
	if err != nil {
		logger.Warn("jobs still running after the timeout: cancelling them", "timeout", timeout, "reason", err)
		ctx, cancel := context.WithTimeout(context.Background(), cancelJobsTimeout)
		defer cancel()
		if err := runner.StopAndCancel(ctx); err != nil {
			return fmt.Errorf("stop jobs: cancelled jobs still running after %s: %w", cancelJobsTimeout, err)
		}
	}
	logger.Info("jobs stopped")
	return nil
}

// connCounter counts the server's open connections (http.Server's
// ConnState hook) and the requests in its handlers, so that a stop that
// cuts connections can say how many and wait for their handlers.
type connCounter struct {
	conns atomic.Int64

	mu       sync.Mutex
	handlers int
	idle     chan struct{} // closed when the last running handler returns
}

func (c *connCounter) track(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		c.conns.Add(1)
	case http.StateHijacked, http.StateClosed:
		c.conns.Add(-1)
	}
}

func (c *connCounter) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		if c.handlers++; c.handlers == 1 {
			c.idle = make(chan struct{})
		}
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			if c.handlers--; c.handlers == 0 {
				close(c.idle)
			}
			c.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

func (c *connCounter) open() int64 { return c.conns.Load() }

func (c *connCounter) handling() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handlers
}

// wait waits up to d for no handler to run, and reports whether none does.
func (c *connCounter) wait(d time.Duration) bool {
	c.mu.Lock()
	if c.handlers == 0 {
		c.mu.Unlock()
		return true
	}
	idle := c.idle
	c.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}

// readTrustRoots reads the PEM bundle at path (--receiver-trust-roots),
// nil when path is "".
func readTrustRoots(path string) (*sello.TrustRoots, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--receiver-trust-roots: cannot read %s: %v", path, errors.Unwrap(err))}
	}
	roots, err := sello.ParseTrustRoots(b)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--receiver-trust-roots %s: %v: want the CA certificates in PEM (-----BEGIN CERTIFICATE-----)", path, err)}
	}
	return roots, nil
}

// setFromEnv gives flags the values of environment variables, given as
// pairs of a flag's name and its variable's, before the command line
// (which wins) is parsed.
func setFromEnv(fs *flag.FlagSet, getenv func(string) string, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := getenv(pairs[i+1]); v != "" {
			if err := fs.Set(pairs[i], v); err != nil {
				return usageError{fmt.Sprintf("%s=%q: %v", pairs[i+1], v, err)}
			}
		}
	}
	return nil
}

// checkServeFlags refuses serve's flags that cannot work together.
func checkServeFlags(fs *flag.FlagSet, sf *storageFlags, shutdownTimeout time.Duration) error {
	if shutdownTimeout <= 0 {
		return usageError{fmt.Sprintf("--shutdown-timeout must be positive, not %s", shutdownTimeout)}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range []string{"db-max-conns", "jobs-db-max-conns"} {
		if set[name] && sf.databaseURL == "" {
			return usageError{fmt.Sprintf("--%s sizes a PostgreSQL pool: it applies only with --database-url (SQLite's connections are fixed)", name)}
		}
	}
	if set["db-max-conns"] && sf.maxConns < 1 {
		return usageError{fmt.Sprintf("--db-max-conns must be at least 1, not %d", sf.maxConns)}
	}
	if set["jobs-db-max-conns"] && sf.jobsMaxConns < postgres.MinJobsMaxConns {
		return usageError{fmt.Sprintf("--jobs-db-max-conns must be at least %d (River's listener, producer, completer and elector each hold a connection at times), not %d", postgres.MinJobsMaxConns, sf.jobsMaxConns)}
	}
	return nil
}

// poolAttrs are the log attributes of PostgreSQL's pool sizes.
func poolAttrs(st *storage) []any {
	db, ok := st.Store.(*postgres.DB)
	if !ok {
		return nil
	}
	return []any{"db_max_conns", db.Pool().Config().MaxConns, "jobs_db_max_conns", db.JobsPool().Config().MaxConns}
}

// newLogger is serve's logger on w: every line logged within a request or
// a job names its correlation id, and its trace when traced
// (tracing.LogHandler).
func newLogger(format, level string, w io.Writer) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usageError{fmt.Sprintf("--log-level must be debug, info, warn or error, not %q", level)}
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(tracing.LogHandler(slog.NewTextHandler(w, opts))), nil
	case "json":
		return slog.New(tracing.LogHandler(slog.NewJSONHandler(w, opts))), nil
	}
	return nil, usageError{fmt.Sprintf("--log-format must be text or json, not %q", format)}
}

// traceFlushTimeout bounds the export of the spans still buffered when
// serve stops.
const traceFlushTimeout = 5 * time.Second

// flushTraces exports the spans still buffered, when tracing is on: the
// last step of serve's stop.
func flushTraces(traces *tracing.Provider, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
	defer cancel()
	if err := traces.Shutdown(ctx); err != nil {
		logger.Warn("traces not flushed", "err", err)
	}
}

// maxHeaderBytes bounds a request's header block. Go's server answers a
// larger one itself, before Sello's handler, with a plain-text 431
// (docs/api.md, "Answers that are not JSON").
const maxHeaderBytes = 64 << 10

// serveDebug serves net/http/pprof and m's metrics (/metrics) on addr,
// apart from the API, and prints "metrics http://ADDR/metrics" on stdout.
func serveDebug(addr string, m *metrics.Metrics, logger *slog.Logger, stdout io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("debug listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("GET /metrics", m.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	logger.Info("profiler and metrics", "addr", ln.Addr().String())
	fmt.Fprintf(stdout, "metrics http://%s/metrics\n", ln.Addr())
	return func() { hs.Close() }, nil
}

// dgiiObserver is the DGII client's OnCall for m: nil without metrics.
func dgiiObserver(m *metrics.Metrics) func(dgii.Call) {
	if m == nil {
		return nil
	}
	return m.DGIICall
}
