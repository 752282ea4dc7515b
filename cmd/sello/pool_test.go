package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/postgres/pgtest"
)

// TestPoolFlags checks serve's --db-max-conns and --jobs-db-max-conns (and
// their environment variables): refused without PostgreSQL and below their
// minimums, and applied to the pools when given.
func TestPoolFlags(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(name string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == name {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	const pg = "postgres://nobody@127.0.0.1:1/none"
	for _, tt := range []struct {
		name   string
		args   []string
		getenv func(string) string
		want   string
	}{
		{"ErrSQLite", []string{"--db-max-conns", "5"}, noEnv, "--db-max-conns sizes a PostgreSQL pool: it applies only with --database-url"},
		{"ErrSQLiteJobs", []string{"--jobs-db-max-conns", "5"}, noEnv, "--jobs-db-max-conns sizes a PostgreSQL pool: it applies only with --database-url"},
		{"ErrSQLiteEnv", nil, env("SELLO_JOBS_DB_MAX_CONNS", "8"), "--jobs-db-max-conns sizes a PostgreSQL pool: it applies only with --database-url"},
		{"ErrJobsTooSmall", []string{"--database-url", pg, "--jobs-db-max-conns", "3"}, noEnv, "--jobs-db-max-conns must be at least 4"},
		{"ErrJobsTooSmallEnv", []string{"--database-url", pg}, env("SELLO_JOBS_DB_MAX_CONNS", "2"), "--jobs-db-max-conns must be at least 4"},
		{"ErrStoreZero", []string{"--database-url", pg, "--db-max-conns", "0"}, noEnv, "--db-max-conns must be at least 1, not 0"},
		{"ErrNotNumber", []string{"--database-url", pg, "--db-max-conns", "many"}, noEnv, `invalid value "many" for flag -db-max-conns`},
		{"ErrEnvNotNumber", []string{"--database-url", pg}, env("SELLO_DB_MAX_CONNS", "many"), `SELLO_DB_MAX_CONNS="many"`},
		{"ErrShutdownTimeout", []string{"--shutdown-timeout", "0s"}, noEnv, "--shutdown-timeout must be positive, not 0s"},
		{"ErrShutdownTimeoutEnv", nil, env("SELLO_SHUTDOWN_TIMEOUT", "soon"), `SELLO_SHUTDOWN_TIMEOUT="soon"`},
		{"ErrSequenceLowPercent", []string{"--sequence-low-percent", "0"}, noEnv, "--sequence-low-percent must be 1–100, not 0"},
		{"ErrSequenceLowPercentOver", []string{"--sequence-low-percent", "101"}, noEnv, "--sequence-low-percent must be 1–100, not 101"},
		{"ErrSequenceLowCount", []string{"--sequence-low-count", "-1"}, noEnv, "--sequence-low-count must be at least 1, not -1"},
		{"ErrSequenceExpiryWarning", []string{"--sequence-expiry-warning", "0s"}, noEnv, "--sequence-expiry-warning must be positive, not 0s"},
		{"ErrContingencyAfter", []string{"--contingency-after", "0s"}, noEnv, "--contingency-after must be positive and at most 24h"},
		{"ErrContingencyAfterLong", []string{"--contingency-after", "48h"}, noEnv, "--contingency-after must be positive and at most 24h (DGII's deadline for e-CFs issued in contingency is 72 h), not 48h0m0s"},
		{"ErrContingencyAfterEnv", nil, env("SELLO_CONTINGENCY_AFTER", "soon"), `SELLO_CONTINGENCY_AFTER="soon"`},
		{"ErrReceiverAddressRate", []string{"--receiver-address-rate", "0"}, noEnv, "--receiver-address-rate must be above 0 and --receiver-address-burst at least 1, not 0 and 1000"},
		{"ErrReceiverTenantBurstEnv", nil, env("SELLO_RECEIVER_TENANT_BURST", "0"), "--receiver-tenant-rate must be above 0 and --receiver-tenant-burst at least 1, not 200 and 0"},
		{"ErrReceiverIssuerQuota", []string{"--receiver-issuer-quota", "-1"}, noEnv, "--receiver-issuer-quota must be 0 (no quota) or more, not -1"},
		{"ErrReceiverENCFQuotaEnv", nil, env("SELLO_RECEIVER_ENCF_QUOTA", "-2"), "--receiver-encf-quota must be 0 (no quota) or more, not -2"},
		{"ErrReceiverTimeout", []string{"--receiver-timeout", "3m"}, noEnv, "--receiver-timeout must be positive and at most 2m0s (the server's time to read a request), not 3m0s"},
		{"ErrReceiverTimeoutEnv", nil, env("SELLO_RECEIVER_TIMEOUT", "soon"), `SELLO_RECEIVER_TIMEOUT="soon"`},
		{"ErrTenantLabelsWithoutMetrics", []string{"--metrics-tenant-labels"}, noEnv, "--metrics-tenant-labels adds metrics, served only on --debug-addr: give it too"},
		{"ErrTrustedProxies", []string{"--trusted-proxies", "10.0.0.0/8, proxy.example.com"}, noEnv, `--trusted-proxies: "proxy.example.com" is neither an address nor a CIDR prefix`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			err := run(t.Context(), append([]string{"serve", "--data", data}, tt.args...), tt.getenv, io.Discard, io.Discard)
			var usage usageError
			if !errors.As(err, &usage) {
				t.Fatalf("got %v, want a usage error", err)
			}
			if !strings.Contains(usage.msg, tt.want) {
				t.Fatalf("got %q, want %q", usage.msg, tt.want)
			}
		})
	}

	t.Run("OK", func(t *testing.T) {
		dbURL := pgtest.MustSchema(t)
		key := make([]byte, 32)
		rand.Read(key)
		// The environment sizes the store's pool; the flag overrides the
		// environment for the jobs pool.
		getenv := env("SELLO_MASTER_KEY", base64.StdEncoding.EncodeToString(key), "SELLO_DB_MAX_CONNS", "6", "SELLO_JOBS_DB_MAX_CONNS", "9")
		args := []string{"serve", "--addr", "127.0.0.1:0", "--database-url", dbURL, "--jobs-db-max-conns", "5"}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var stderr syncBuffer
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, args, getenv, pw, &stderr)
			pw.Close()
		}()
		line, err := readLine(pr)
		if !strings.HasPrefix(line, "listening on ") {
			cancel()
			t.Fatalf("first line %q (%v), want listening on …; server: %v\n%s", line, err, <-done, stderr.String())
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve: %v\n%s", err, stderr.String())
			}
		case <-time.After(40 * time.Second):
			t.Fatal("server did not stop within 40 s")
		}
		if log := stderr.String(); !strings.Contains(log, "db_max_conns=6 jobs_db_max_conns=5") {
			t.Fatalf("the serving line does not name the pools' sizes 6 and 5:\n%s", log)
		}
	})
}
