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
	"runtime/debug"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/worker"
)

// shutdownTimeout bounds how long in-flight requests may take to finish
// after SIGINT/SIGTERM.
const shutdownTimeout = 30 * time.Second

// defaultGCPercent is the server's GOGC unless the environment sets one
// (which the runtime has applied already). Sello's live heap is small (tens
// of MB) and its garbage is many short-lived buffers (JSON, XML, HTTP): a
// collector that runs less often costs less CPU for a little more peak
// memory (the figures are in docs/benchmarks.md).
const defaultGCPercent = 300

// runServe runs the API until ctx ends, then shuts down cleanly: it stops
// accepting connections and lets in-flight requests finish.
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sello serve", flag.ContinueOnError)
	sf := storageFlags{stderr: stderr}
	sf.register(fs, getenv)
	addr := fs.String("addr", envOr(getenv, "SELLO_ADDR", "127.0.0.1:8080"), "address to listen on (env SELLO_ADDR)")
	demo := fs.Bool("demo", false, "create a demo tenant with sequences and keys on first start")
	logFormat := fs.String("log-format", envOr(getenv, "SELLO_LOG_FORMAT", "text"), "log format on stderr: text or json (env SELLO_LOG_FORMAT)")
	var df dgiiFlags
	df.register(fs, getenv)
	workers := fs.Int("workers", 4096, "jobs worked at once (signing, DGII calls; most of a job is waiting for DGII, in process while it validates a document)")
	debugAddr := fs.String("debug-addr", "", "serve Go's profiler (net/http/pprof) on this address, e.g. 127.0.0.1:6060; off by default")
	rescueAfter := fs.Duration("job-rescue-after", 2*time.Minute, "how long a job may run before it is deemed interrupted and run again")
	allowLoopback := fs.Bool("allow-loopback-webhooks", false, "let webhooks of TesteCF and CerteCF endpoints reach receivers on this machine (127.0.0.0/8, ::1), for tests and demos; never eCF's; --demo turns it on")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	logger, err := newLogger(*logFormat, stderr)
	if err != nil {
		return err
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
	urls, dgiiDesc, stopSim, err := df.start(logger)
	if err != nil {
		return err
	}
	defer stopSim(context.Background())
	if *demo {
		if err := seedDemo(ctx, st, mk, df.simulated(), time.Now(), stdout, stderr); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}

	if *demo {
		*allowLoopback = true
	}
	if *allowLoopback {
		logger.Warn("webhooks of TesteCF and CerteCF endpoints may reach loopback receivers (--allow-loopback-webhooks); eCF's never do")
	}
	wk := worker.New(worker.Config{
		Store:     st,
		DGII:      dgii.New(dgii.Config{URLs: urls, HTTPClient: &http.Client{Timeout: df.timeout, Transport: dgii.NewTransport()}}),
		MasterKey: mk,
		Logger:    logger.With("component", "worker"),
		Webhooks:  webhook.Options{AllowLoopback: *allowLoopback},
		Version:   version,
	})
	defer wk.Close()
	runner, err := st.NewJobRunner(wk.Workers(), sello.JobConfig{
		Workers:     *workers,
		Logger:      logger.With("component", "jobs"),
		JobTimeout:  min(time.Minute, *rescueAfter/2),
		RescueAfter: *rescueAfter,
		Periodic:    wk.Periodic(),
	})
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	if err := runner.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start jobs: %w", err)
	}

	if *debugAddr != "" {
		stopDebug, err := serveDebug(*debugAddr, logger)
		if err != nil {
			return err
		}
		defer stopDebug()
	}

	srv := &api.Server{Store: st, RateLimiter: st.limiter, Logger: logger, Ready: st.ready}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("serving", "addr", ln.Addr().String(), "storage", st.desc, "dgii", dgiiDesc, "version", version)
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	// Jobs in flight finish (or are rescued by another node, or at the next
	// start, if they outlast the timeout); those waiting for a verdict
	// snooze rather than wait for DGII.
	wk.Drain()
	if err := runner.Stop(sctx); err != nil {
		return fmt.Errorf("stop jobs: %w", err)
	}
	logger.Info("stopped")
	return nil
}

func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, usageError{fmt.Sprintf("--log-format must be text or json, not %q", format)}
}

// maxHeaderBytes bounds a request's header block. Go's server answers a
// larger one itself, before Sello's handler, with a plain-text 431
// (docs/api.md, "Answers that are not JSON").
const maxHeaderBytes = 64 << 10

// serveDebug serves net/http/pprof on addr, apart from the API.
func serveDebug(addr string, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("debug listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	logger.Info("profiler", "addr", ln.Addr().String())
	return func() { hs.Close() }, nil
}
