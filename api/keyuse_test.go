package api_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
)

// TestKeyUse: every key shows when it was first and last used and from
// which address, as the API sees the client (behind a trusted proxy, the
// address it was called from), written at most once a minute; a refused
// request the key authenticated counts, one it did not does not.
func TestKeyUse(t *testing.T) {
	f := mustFixture(t)
	var mu sync.Mutex
	now := time.Date(2026, 11, 26, 18, 5, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	srv := &api.Server{Store: f.store, Now: clock, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	h := srv.Handler()
	call := func(key, peer, forwarded, path string) int {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = peer
		req.Header.Set("X-API-KEY", key)
		if forwarded != "" {
			req.Header.Set("X-Forwarded-For", forwarded)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	want := func(first, last time.Time, addr string) {
		t.Helper()
		k, _, err := f.store.FindAPIKeyByHash(t.Context(), sello.HashAPIKey(f.key))
		if err != nil {
			t.Fatal(err)
		}
		if k.FirstUsedAt == nil || !k.FirstUsedAt.Equal(first) || k.LastUsedAt == nil || !k.LastUsedAt.Equal(last) || k.LastUsedAddress != addr {
			t.Fatalf("first used %v, last %v from %q; want %v, %v from %q", k.FirstUsedAt, k.LastUsedAt, k.LastUsedAddress, first, last, addr)
		}
	}
	const list = "/TesteCF/documentos-ecf"

	t0 := clock()
	if code := call(f.key, "192.0.2.1:40000", "", list); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	want(t0, t0, "192.0.2.1")

	// Within the minute, from elsewhere: not written.
	advance(59 * time.Second)
	call(f.key, "192.0.2.2:40000", "", list)
	want(t0, t0, "192.0.2.1")

	// A minute after the last write, through the trusted proxy: the
	// address the proxy was called from, the client's own claim ignored.
	advance(time.Second)
	t1 := clock()
	call(f.key, "10.1.2.3:50000", "203.0.113.9, 198.51.100.7", list)
	want(t0, t1, "198.51.100.7")

	// From a peer that is not a proxy, X-Forwarded-For is not believed;
	// an IPv6 client shows whole (the receivers' /64 is for counting).
	// A refused request (another environment) counts: the key was sent.
	advance(time.Minute)
	t2 := clock()
	if code := call(f.key, "[2001:db8::42]:40000", "198.51.100.7", "/eCF/documentos-ecf"); code != http.StatusForbidden {
		t.Fatalf("status %d, want 403 ENVIRONMENT_MISMATCH", code)
	}
	want(t0, t2, "2001:db8::42")

	// A revoked key is refused and its use not written.
	k, plaintext := sello.NewAPIKey(f.tenant.ID, sello.EnvTest, "revoked", sello.Scopes, nil)
	if err := f.store.CreateAPIKey(t.Context(), k); err != nil {
		t.Fatal(err)
	}
	if err := f.store.RevokeAPIKey(t.Context(), f.tenant.ID, k.ID, clock()); err != nil {
		t.Fatal(err)
	}
	if code := call(plaintext, "192.0.2.99:40000", "", list); code != http.StatusUnauthorized {
		t.Fatalf("revoked key: status %d, want 401", code)
	}
	if got, err := f.store.FindAPIKey(t.Context(), f.tenant.ID, k.ID); err != nil || got.FirstUsedAt != nil || got.LastUsedAddress != "" {
		t.Fatalf("revoked key: %+v, %v; want no use recorded", got, err)
	}
}

// BenchmarkAuthenticatedRequest is what noting the key's use costs a
// cheap authenticated request (a page of an empty document list), each
// way on its own store: Off records nothing (the request as it was before
// keys kept their use); Coalesced is the server's way, a write per key per
// minute; EveryRequest writes on every request, what the coalescing
// saves; OffUsedKey records nothing but reads a used key. The serial run
// alternates them in every iteration, so that a noisy machine slows them
// alike, and reports each one's time per request and the ratios to Off;
// the parallel runs are separate.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	modes := []struct {
		name string
		set  func(*api.Server)
		used bool // the key's use is written before the run
	}{
		{"Off", api.NoKeyUses, false},
		{"Coalesced", func(*api.Server) {}, false},
		{"EveryRequest", func(s *api.Server) { api.KeyUsesEvery(s, time.Nanosecond) }, false},
		// Off, but reading a key whose use is stored (three more values
		// to scan): Coalesced minus this is the recording itself.
		{"OffUsedKey", api.NoKeyUses, true},
	}
	engines := []struct {
		name string
		open func(b *testing.B) *fixture
	}{
		{"SQLite", func(b *testing.B) *fixture { return mustFixture(b) }},
		{"PostgreSQL", func(b *testing.B) *fixture {
			db, err := postgres.Open(b.Context(), pgtest.MustSchema(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return mustFixtureOn(b, db, nil)
		}},
	}
	// serve returns a function that sends one request with the key of
	// its fixture to a server set up by set.
	serve := func(b *testing.B, f *fixture, set func(*api.Server), used bool) func() bool {
		if used {
			k, _, err := f.store.FindAPIKeyByHash(b.Context(), sello.HashAPIKey(f.key))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.store.RecordAPIKeyUse(b.Context(), k.TenantID, k.ID, time.Now(), "192.0.2.1", time.Minute); err != nil {
				b.Fatal(err)
			}
		}
		srv := &api.Server{Store: f.store}
		set(srv)
		h := srv.Handler()
		return func() bool {
			req := httptest.NewRequest("GET", "/TesteCF/documentos-ecf?limit=1", nil)
			req.Header.Set("X-API-KEY", f.key)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body)
				return false
			}
			return true
		}
	}
	for _, e := range engines {
		b.Run(e.name+"/Alternated", func(b *testing.B) {
			do := make([]func() bool, len(modes))
			for i, m := range modes {
				do[i] = serve(b, e.open(b), m.set, m.used)
			}
			spent := make([]time.Duration, len(modes))
			n := 0
			for b.Loop() {
				for j := range modes {
					i := (n + j) % len(modes) // each goes first in turn
					start := time.Now()
					if !do[i]() {
						return
					}
					spent[i] += time.Since(start)
				}
				n++
			}
			for i, m := range modes {
				b.ReportMetric(float64(spent[i].Nanoseconds())/float64(n), m.name+"-ns/req")
			}
			b.ReportMetric(float64(spent[1])/float64(spent[0]), "coalesced/off")
			b.ReportMetric(float64(spent[2])/float64(spent[0]), "every/off")
			b.ReportMetric(float64(spent[3])/float64(spent[0]), "offusedkey/off")
			b.ReportMetric(0, "ns/op") // several requests: see the metrics
		})
		for _, m := range modes[:3] {
			b.Run(e.name+"/Parallel/"+m.name, func(b *testing.B) {
				do := serve(b, e.open(b), m.set, m.used)
				b.SetParallelism(8) // × GOMAXPROCS goroutines
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if !do() {
							return
						}
					}
				})
			})
		}
	}
}
