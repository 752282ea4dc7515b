package dgii_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
)

func TestDefaultBackoff(t *testing.T) {
	for attempt, want := range map[int]time.Duration{1: 250 * time.Millisecond, 2: 500 * time.Millisecond, 3: time.Second, 6: 8 * time.Second, 50: 8 * time.Second} {
		for range 100 {
			if got := dgii.DefaultBackoff(attempt); got < want/2 || got > want {
				t.Fatalf("DefaultBackoff(%d) = %v, want in [%v, %v]", attempt, got, want/2, want)
			}
		}
	}
}

// TestBackoffWaits checks, on synctest's fake clock, that an idempotent
// call waits DefaultBackoff between attempts and a send does not retry.
func TestBackoffWaits(t *testing.T) {
	sim := dgiisim.New(dgiisim.Config{Verify: dgiisim.FakeVerify})
	srv := httptest.NewServer(sim) // outside the bubble: real network, real time
	defer srv.Close()
	synctest.Test(t, func(t *testing.T) {
		// No keep-alive: an idle connection's reader would keep the bubble
		// from ever being idle, and fake time from advancing.
		tr := &http.Transport{DisableKeepAlives: true}
		c := dgii.New(dgii.Config{URLs: dgii.URLs{ECF: srv.URL}, HTTPClient: &http.Client{Transport: tr, Timeout: time.Minute}})
		s := c.Session(sello.EnvTest, issuer, dgiisim.FakeSign)
		if _, err := s.Result(ctx, "x"); err != nil {
			t.Fatal(err)
		}
		sim.SetDown(true)
		defer sim.SetDown(false)

		start := time.Now()
		_, err := s.Result(ctx, "x")
		if !errors.Is(err, dgii.ErrUnavailable) {
			t.Fatalf("err = %v", err)
		}
		// Three retries: 250 ms, 500 ms and 1 s, each at least half fixed.
		if got := time.Since(start); got < 875*time.Millisecond || got > 1750*time.Millisecond+time.Millisecond {
			t.Fatalf("waited %v, want between 875ms and 1.75s", got)
		}

		start = time.Now()
		if _, err := s.SendECF(ctx, encf(1), []byte("<ECF/>")); !errors.Is(err, dgii.ErrUnavailable) {
			t.Fatalf("err = %v", err)
		}
		if got := time.Since(start); got != 0 {
			t.Fatalf("a send waited %v, want no retry", got)
		}
	})
}
