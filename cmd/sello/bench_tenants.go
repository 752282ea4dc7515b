package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// benchRNCBase + i is the RNC of the bench's tenant i (1, 2, …), clear of
// the demo's 130000001 and 130000002.
const benchRNCBase = 140_000_000

// maxBenchTenants keeps the bench's RNCs at 9 digits.
const maxBenchTenants = 999_999_999 - benchRNCBase

// benchScopes are what the bench's keys need: creates, status/batch, and
// the events feed.
var benchScopes = []sello.Scope{sello.ScopeCreate, sello.ScopeStatusRead, sello.ScopeRead}

// setupBenchTenants creates n tenants for sello bench in the storage sf
// names, as --demo creates its own: on the demo plan (so that the bench
// measures the pipeline, not the plan), with a sequence for every type, a
// certificate of env issued by the demo CA of the data folder, and a key of
// env with benchScopes, which it prints as a keys file ("RNC KEY" lines).
// A tenant that exists already (an earlier setup) gets a new key, and a
// certificate if it has none of the demo CA. The master key is found as
// serve finds it (SELLO_MASTER_KEY, else the data folder's), so the servers
// can open the certificates' keys.
func setupBenchTenants(ctx context.Context, sf *storageFlags, getenv func(string) string, n int, env sello.Environment, stdout io.Writer) error {
	if n > maxBenchTenants {
		return usageError{fmt.Sprintf("--setup-tenants must be at most %d", maxBenchTenants)}
	} else if env == sello.EnvProd {
		return usageError{"--setup-tenants makes test tenants: --env TesteCF or CerteCF"}
	}
	mk, err := sf.masterKey(getenv, false)
	if err != nil {
		return err
	}
	ca, err := sf.demoCA()
	if err != nil {
		return fmt.Errorf("demo CA: %w", err)
	}
	st, err := sf.open(ctx, true)
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now()
	fmt.Fprintf(stdout, "# sello bench --keys-file: %d tenants of %s, RNC KEY\n", n, env)
	for i := 1; i <= n; i++ {
		rnc := strconv.Itoa(benchRNCBase + i)
		t, err := st.FindTenantByRNC(ctx, rnc)
		if sello.ErrorCodeOf(err) == sello.CodeNotFound {
			t, err = createDemoTenant(ctx, st, now, rnc, fmt.Sprintf("Bench %d SRL", i))
		}
		if err != nil {
			return fmt.Errorf("tenant %s: %w", rnc, err)
		}
		if err := demoCertificate(ctx, st, mk, ca, t, env, now); err != nil {
			return fmt.Errorf("tenant %s: certificate: %w", rnc, err)
		}
		_, key, err := sello.IssueAPIKey(ctx, st, t.ID, sello.APIKeyRequest{Environment: env, Name: "bench", Scopes: benchScopes}, now)
		if err != nil {
			return fmt.Errorf("tenant %s: key: %w", rnc, err)
		}
		fmt.Fprintf(stdout, "%s %s\n", rnc, key)
	}
	return nil
}

// readKeysFile reads the tenants of a keys file: lines "RNC KEY"; blank
// lines and lines starting with # are skipped.
func readKeysFile(path string) ([]benchTenant, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--keys-file: %w", err)
	}
	defer f.Close()
	var ts []benchTenant
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want RNC KEY", path, n)
		}
		if err := sello.ValidateRNC(fields[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: %s", path, n, sello.ErrorMessageOf(err))
		}
		ts = append(ts, benchTenant{rnc: fields[0], key: fields[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--keys-file: %w", err)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s: no tenants", path)
	}
	return ts, nil
}
