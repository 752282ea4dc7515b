package webhook_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/webhook"
)

// base is DESIGN §5's schedule: the delay before attempt i+1.
var base = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

func TestNextDelay(t *testing.T) {
	t.Run("Bounds", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for attempt := 1; attempt < sello.MaxWebhookAttempts; attempt++ {
			b := base[attempt]
			lo, hi := time.Duration(float64(b)*0.8), time.Duration(float64(b)*1.2)
			var sawLow, sawHigh bool
			for range 10000 {
				d, ok := webhook.NextDelay(attempt, rng.Float64)
				if !ok || d < lo || d >= hi {
					t.Fatalf("NextDelay(%d) = %v, %v; want in [%v, %v)", attempt, d, ok, lo, hi)
				}
				sawLow = sawLow || d < time.Duration(float64(b)*0.85)
				sawHigh = sawHigh || d > time.Duration(float64(b)*1.15)
			}
			if !sawLow || !sawHigh {
				t.Errorf("NextDelay(%d) never came near the edges of ±20%% in 10,000 draws", attempt)
			}
		}
	})
	t.Run("Extremes", func(t *testing.T) {
		for attempt := 1; attempt < sello.MaxWebhookAttempts; attempt++ {
			if d, _ := webhook.NextDelay(attempt, func() float64 { return 0 }); d != time.Duration(float64(base[attempt])*0.8) {
				t.Errorf("NextDelay(%d) at rnd 0 = %v, want %v", attempt, d, time.Duration(float64(base[attempt])*0.8))
			}
			if d, _ := webhook.NextDelay(attempt, func() float64 { return 0.5 }); d != base[attempt] {
				t.Errorf("NextDelay(%d) at rnd 0.5 = %v, want %v", attempt, d, base[attempt])
			}
			// A broken source cannot push the delay out of bounds.
			if d, _ := webhook.NextDelay(attempt, func() float64 { return 7 }); d > time.Duration(float64(base[attempt])*1.2) {
				t.Errorf("NextDelay(%d) at rnd 7 = %v", attempt, d)
			}
		}
	})
	t.Run("EightAttempts", func(t *testing.T) {
		attempts := 1 // the first, immediately
		if d, ok := webhook.NextDelay(0, nil); d != 0 || !ok {
			t.Fatalf("NextDelay(0) = %v, %v; want immediately", d, ok)
		}
		var total time.Duration
		for {
			d, ok := webhook.NextDelay(attempts, func() float64 { return 0.5 })
			if !ok {
				break
			}
			total += d
			attempts++
		}
		if attempts != 8 {
			t.Fatalf("%d attempts, want 8", attempts)
		}
		if want := 27*time.Hour + 35*time.Minute + 5*time.Second; total != want {
			t.Errorf("the last attempt comes %v after the first, want %v", total, want)
		}
		for _, n := range []int{8, 9, 100, -1} {
			if _, ok := webhook.NextDelay(n, nil); ok {
				t.Errorf("NextDelay(%d) allows another attempt", n)
			}
		}
	})
	t.Run("DefaultSource", func(t *testing.T) {
		for range 1000 {
			if d, ok := webhook.NextDelay(2, nil); !ok || d < 4*time.Minute || d >= 6*time.Minute {
				t.Fatalf("NextDelay(2, nil) = %v, %v", d, ok)
			}
		}
	})
}

func TestRetryDelay(t *testing.T) {
	half := func() float64 { return 0.5 } // no jitter: the base delay
	for _, c := range []struct {
		name    string
		attempt int
		a       webhook.Attempt
		want    time.Duration
		ok      bool
	}{
		{"ServerError", 2, webhook.Attempt{Status: 500, Class: webhook.ClassHTTPStatus}, 5 * time.Minute, true},
		{"Connect", 3, webhook.Attempt{Class: webhook.ClassConnect}, 30 * time.Minute, true},
		{"Blocked", 1, webhook.Attempt{Class: webhook.ClassBlocked}, 5 * time.Second, true},
		{"429AtLeastAMinute", 1, webhook.Attempt{Status: 429, Class: webhook.ClassHTTPStatus}, time.Minute, true},
		{"429ShortRetryAfter", 1, webhook.Attempt{Status: 429, Class: webhook.ClassHTTPStatus, RetryAfter: time.Second}, time.Minute, true},
		{"429LongRetryAfterClamped", 1, webhook.Attempt{Status: 429, Class: webhook.ClassHTTPStatus, RetryAfter: time.Hour}, time.Minute, true},
		{"429LaterInSchedule", 4, webhook.Attempt{Status: 429, Class: webhook.ClassHTTPStatus, RetryAfter: 3 * time.Hour}, 3 * time.Hour, true},
		{"TimeoutAtLeastAMinute", 1, webhook.Attempt{Class: webhook.ClassTimeout}, time.Minute, true},
		{"TimeoutLater", 3, webhook.Attempt{Class: webhook.ClassTimeout}, 30 * time.Minute, true},
		{"503RetryAfterWithin", 2, webhook.Attempt{Status: 503, Class: webhook.ClassHTTPStatus, RetryAfter: 7 * time.Minute}, 7 * time.Minute, true},
		{"503RetryAfterAbove", 2, webhook.Attempt{Status: 503, Class: webhook.ClassHTTPStatus, RetryAfter: 24 * time.Hour}, 10 * time.Minute, true},
		{"503RetryAfterBelow", 2, webhook.Attempt{Status: 503, Class: webhook.ClassHTTPStatus, RetryAfter: time.Second}, 5 * time.Minute, true},
		{"503NoRetryAfterNoMinimum", 1, webhook.Attempt{Status: 503, Class: webhook.ClassHTTPStatus}, 5 * time.Second, true},
		{"500RetryAfterIgnored", 2, webhook.Attempt{Status: 500, Class: webhook.ClassHTTPStatus, RetryAfter: 9 * time.Minute}, 5 * time.Minute, true},
		{"Gone", 1, webhook.Attempt{Status: 410, Class: webhook.ClassHTTPStatus}, 0, false},
		{"Success", 1, webhook.Attempt{Status: 204}, 0, false},
		{"LastAttempt", 8, webhook.Attempt{Status: 500, Class: webhook.ClassHTTPStatus}, 0, false},
		{"LastAttempt429", 8, webhook.Attempt{Status: 429, Class: webhook.ClassHTTPStatus, RetryAfter: time.Minute}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, ok := webhook.RetryDelay(c.attempt, &c.a, half)
			if d != c.want || ok != c.ok {
				t.Fatalf("RetryDelay(%d) = %v, %v; want %v, %v", c.attempt, d, ok, c.want, c.ok)
			}
		})
	}
}
