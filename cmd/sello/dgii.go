package main

import (
	"context"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/xmldsig"
)

// dgiiFlags choose the DGII that serve talks to.
type dgiiFlags struct {
	mode    string        // simulated or live
	url     string        // an external simulator's base URL
	simAddr string        // where the in-process simulator listens
	delay   time.Duration // the simulator's "En Proceso" time
	timeout time.Duration // one call to DGII
}

func (f *dgiiFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&f.mode, "dgii", envOr(getenv, "SELLO_DGII", "simulated"), "simulated (DGII simulator in process) or live (DGII's real services) (env SELLO_DGII)")
	fs.StringVar(&f.url, "dgii-url", getenv("SELLO_DGII_URL"), "base URL of an external DGII simulator (sello dgii-sim); overrides --dgii (env SELLO_DGII_URL)")
	fs.StringVar(&f.simAddr, "dgii-sim-addr", "127.0.0.1:0", "address of the in-process simulator (loopback only)")
	fs.DurationVar(&f.delay, "dgii-sim-delay", 2*time.Second, "how long the in-process simulator keeps a document En Proceso")
	fs.DurationVar(&f.timeout, "dgii-timeout", 30*time.Second, "how long one call to DGII may take")
}

// simulated reports whether serve talks to a simulator, in process or not.
func (f *dgiiFlags) simulated() bool { return f.url != "" || f.mode == "simulated" }

// start returns the URLs of the DGII to use, starting the in-process
// simulator when asked, whose directory asks receivers for the RNCs it does
// not hold; stop shuts it down.
func (f *dgiiFlags) start(logger *slog.Logger, receivers func(env sello.Environment, rnc string) (name, base string, ok bool)) (urls dgii.URLs, desc string, stop func(context.Context) error, err error) {
	noop := func(context.Context) error { return nil }
	switch {
	case f.url != "":
		return dgii.URLs{ECF: f.url, FC: f.url}, "external simulator " + f.url, noop, nil
	case f.mode == "live":
		return dgii.LiveURLs(), "live", noop, nil
	case f.mode != "simulated":
		return dgii.URLs{}, "", nil, usageError{fmt.Sprintf("--dgii must be simulated or live, not %q", f.mode)}
	}
	ln, err := net.Listen("tcp", f.simAddr)
	if err != nil {
		return dgii.URLs{}, "", nil, fmt.Errorf("dgii simulator: listen: %w", err)
	}
	sign, err := simulatorSigner()
	if err != nil {
		ln.Close()
		return dgii.URLs{}, "", nil, err
	}
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, ProcessingDelay: f.delay, Receivers: receivers, Logger: logger.With("component", "dgii-sim")})
	hs := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	base := "http://" + ln.Addr().String()
	return dgii.URLs{ECF: base, FC: base}, "simulated at " + base, hs.Shutdown, nil
}

// runDGIISim runs the DGII simulator on its own, for other processes (a
// sello serve with --dgii-url, an ERP's tests).
func runDGIISim(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sello dgii-sim", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on")
	delay := fs.Duration("delay", 2*time.Second, "how long a submission stays En Proceso")
	latency := fs.Duration("latency", 0, "added latency of every answer")
	errorRate := fs.Float64("error-rate", 0, "fraction of requests answered with a 5xx (0 to 1)")
	down := fs.Bool("down", false, "start with every service unavailable (503)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	sign, err := simulatorSigner()
	if err != nil {
		return err
	}
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, ProcessingDelay: *delay, Latency: *latency, ErrorRate: *errorRate, Down: *down, Logger: logger})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "dgii simulator listening on http://%s\n", ln.Addr())
	return serveUntilDone(ctx, hs, ln)
}

// serveUntilDone serves hs on ln until ctx is done, then shuts it down,
// giving requests in flight 10 seconds.
func serveUntilDone(ctx context.Context, hs *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// simulatorSigner signs the acuses the simulator's buyers answer, with a
// self-signed certificate made at start (the buyers are fictitious; Sello
// checks an acuse's signature, not who signed it).
func simulatorSigner() (func([]byte) ([]byte, error), error) {
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "DGII EMISOR RECEPTOR SIMULADO", SerialNumber: "RNC-" + dgiisim.RNCDGIITest}, time.Now().AddDate(1, 0, 0))
	if err != nil {
		return nil, fmt.Errorf("dgii simulator: certificate: %w", err)
	}
	return (&xmldsig.Signer{Key: key, Cert: cert}).Sign, nil
}
