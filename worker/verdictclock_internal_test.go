package worker

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestVerdictClock checks when the first query for a verdict goes: at the
// floor until a verdict is seen, then just before the learned delay, per
// environment, within the bounds, and an outlier moves it at most by an
// eighth of twice the average.
func TestVerdictClock(t *testing.T) {
	var c verdictClock
	lo, hi := 250*time.Millisecond, time.Minute
	if got := c.firstPoll(sello.EnvTest, lo, hi); got != lo {
		t.Fatalf("nothing seen: first poll %s, want the floor %s", got, lo)
	}
	c.seen(sello.EnvTest, 2*time.Second)
	if got := c.firstPoll(sello.EnvTest, lo, hi); got != 1900*time.Millisecond {
		t.Fatalf("after 2 s: first poll %s, want 1.9 s", got)
	}
	if got := c.firstPoll(sello.EnvCert, lo, hi); got != lo {
		t.Fatalf("another environment: first poll %s, want the floor %s", got, lo)
	}
	c.seen(sello.EnvTest, time.Hour) // counted as 4 s: avg 2 s + 2 s/8
	if got := c.firstPoll(sello.EnvTest, lo, hi); got != time.Duration(float64(2250*time.Millisecond)*verdictLead) {
		t.Fatalf("after an outlier: first poll %s, want 95%% of 2.25 s", got)
	}
	for range 100 {
		c.seen(sello.EnvTest, 100*time.Millisecond)
	}
	if got := c.firstPoll(sello.EnvTest, lo, hi); got != lo {
		t.Fatalf("after fast verdicts: first poll %s, want the floor %s", got, lo)
	}
	for range 200 {
		c.seen(sello.EnvTest, 10*time.Minute)
	}
	if got := c.firstPoll(sello.EnvTest, lo, hi); got != hi {
		t.Fatalf("after slow verdicts: first poll %s, want the ceiling %s", got, hi)
	}
}
