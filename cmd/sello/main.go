// Command sello runs Sello's service and its operator commands.
//
//	sello serve [--addr 127.0.0.1:8080] [--data DIR] [--database-url URL] [--demo] [--allow-loopback-webhooks]
//	sello tenants create|list|set-plan …
//	sello keys create|list|revoke …
//	sello sequences add|list …
//	sello voids add|list …
//	sello certification run|list|show …
//	sello webhooks add|list|pause|resume|delete|rotate-secret|test|deliveries|attempts|replay …
//	sello users create|list …
//	sello audit verify|list …
//	sello listen [--addr 127.0.0.1:4000] --secret S [--forward-to URL]
//	sello backup --out FILE | --check FILE
//	sello version
//
// Every command takes --data DIR (SQLite, default ./sello-data) or
// --database-url postgres://… and works while a server runs on the same
// storage. Only serve and tenants create start new data there; the other
// commands refuse, creating nothing, where there is none. Results go to
// stdout, errors to stderr with a non-zero exit code.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	// The IANA time zone database, embedded (~450 KB): TZ names such as
	// America/Santo_Domingo resolve in an image without /usr/share/zoneinfo
	// (scratch, distroless), where Go would otherwise fall back to UTC.
	_ "time/tzdata"

	"github.com/sello-do/sello"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		var usage usageError
		if errors.As(err, &usage) {
			if usage.msg != "" {
				fmt.Fprintln(os.Stderr, "sello:", usage.msg)
			}
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "sello:", describe(err))
		os.Exit(1)
	}
}

// describe renders an error for an operator: the client-facing message of a
// domain error (with its details), or the error itself.
func describe(err error) string {
	var e *sello.Error
	if errors.As(err, &e) && e.Code != sello.CodeInternal {
		msg := e.Message
		for _, d := range e.Details {
			msg += fmt.Sprintf("\n  %s: %s", d.Path, d.Message)
		}
		return msg
	}
	return err.Error()
}

// usageError is a mistake in the command line; main exits with code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `Usage: sello <command> [flags]

Commands:
  serve        run the API, the lifecycle workers and (by default) the DGII simulator
  tenants      create, list or set the plan of tenants
  keys         create, list or revoke API keys
  sequences    add or list authorized e-NCF ranges
  voids        void unused e-NCF ranges (ANECF) or list the voids
  certification run DGII's certification test set in CerteCF, list runs, show a run's progress
  certificates add (.p12), generate (self-signed, tests only) or list signing certificates
  webhooks     configure webhook endpoints, read their delivery log, replay deliveries
  users        invite a person to a tenant's portal (prints a one-time link) or list its users
  audit        verify the audit logs' hash chains, or list a tenant's audit log
  listen       receive webhook deliveries here, verify and print them, forward them to your app
  dgii         status: DGII's reachability per environment (contingency)
  dgii-sim     run the DGII simulator on its own
  bench        load a running server and measure creates and verdicts
  version      print the version, the commit and the Go toolchain
  backup       copy the SQLite database while the server runs, and check a copy

Run 'sello <command> -h' for a command's flags.
`

// run is the whole program: main only wires the process to it, so tests can
// call it with their own arguments, environment and output.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, getenv, stdout, stderr)
	case "tenants":
		return runTenants(ctx, rest, getenv, stdout, stderr)
	case "keys":
		return runKeys(ctx, rest, getenv, stdout, stderr)
	case "sequences":
		return runSequences(ctx, rest, getenv, stdout, stderr)
	case "voids":
		return runVoids(ctx, rest, getenv, stdout, stderr)
	case "certification":
		return runCertification(ctx, rest, getenv, stdout, stderr)
	case "certificates":
		return runCertificates(ctx, rest, getenv, stdout, stderr)
	case "webhooks":
		return runWebhooks(ctx, rest, getenv, stdout, stderr)
	case "users":
		return runUsers(ctx, rest, getenv, stdout, stderr)
	case "audit":
		return runAudit(ctx, rest, getenv, stdout, stderr)
	case "listen":
		return runListen(ctx, rest, getenv, stdout, stderr)
	case "dgii":
		return runDGII(ctx, rest, getenv, stdout, stderr)
	case "dgii-sim":
		return runDGIISim(ctx, rest, getenv, stdout, stderr)
	case "bench":
		return runBench(ctx, rest, getenv, stdout, stderr)
	case "backup":
		return runBackup(ctx, rest, getenv, stdout, stderr)
	case "version", "--version", "-v":
		runVersion(stdout)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

// parseFlags parses fs, turning flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return usageError{}
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}
