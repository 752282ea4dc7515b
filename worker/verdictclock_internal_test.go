package worker

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestVerdictClock checks when the first query for a verdict goes: just
// before the learned delay, per environment, within the bounds, and an
// outlier moves it at most by an eighth of twice the average.
func TestVerdictClock(t *testing.T) {
	var c verdictClock
	lo, hi := 250*time.Millisecond, time.Minute
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now) // the scout
	c.seen(sello.EnvTest, 2*time.Second)
	if got, learned := c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now); got != 1900*time.Millisecond || learned != nil {
		t.Fatalf("after 2 s: first poll %s (wait for a scout: %t), want 1.9 s", got, learned != nil)
	}
	if got, _ := c.firstPoll(sello.EnvCert, lo, hi, scoutFor, now); got != lo {
		t.Fatalf("another environment: first poll %s, want the floor %s (its scout)", got, lo)
	}
	c.seen(sello.EnvTest, time.Hour) // counted as 4 s: avg 2 s + 2 s/8
	if got, _ := c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now); got != time.Duration(float64(2250*time.Millisecond)*verdictLead) {
		t.Fatalf("after an outlier: first poll %s, want 95%% of 2.25 s", got)
	}
	for range 100 {
		c.seen(sello.EnvTest, 100*time.Millisecond)
	}
	if got, _ := c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now); got != lo {
		t.Fatalf("after fast verdicts: first poll %s, want the floor %s", got, lo)
	}
	for range 200 {
		c.seen(sello.EnvTest, 10*time.Minute)
	}
	if got, _ := c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now); got != hi {
		t.Fatalf("after slow verdicts: first poll %s, want the ceiling %s", got, hi)
	}
	if got := c.due(sello.EnvTest, lo, hi); got != hi {
		t.Fatalf("due after slow verdicts: %s, want the ceiling %s", got, hi)
	}
}

// TestVerdictClockScout checks the clock before any verdict is seen: the
// first document asks at the floor, those sent while it does wait for what
// it learns (at most scoutFor), and a scout that learns nothing in scoutFor
// hands over to the next document sent.
func TestVerdictClockScout(t *testing.T) {
	var c verdictClock
	lo, hi := 250*time.Millisecond, time.Minute
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	if got, learned := c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now); got != lo || learned != nil {
		t.Fatalf("first document: first poll %s (waits for a scout: %t), want the floor %s as the scout", got, learned != nil, lo)
	}
	got, learned := c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now.Add(time.Second))
	if got != scoutFor || learned == nil {
		t.Fatalf("second document: first poll %s (waits for the scout: %t), want %s and the scout's news", got, learned != nil, scoutFor)
	}
	select {
	case <-learned:
		t.Fatal("learned is closed before any verdict is seen")
	default:
	}
	if got, learned := c.firstPoll(sello.EnvTest, lo, hi, scoutFor, now.Add(scoutFor)); got != lo || learned != nil {
		t.Fatalf("after scoutFor without a verdict: first poll %s (waits: %t), want a new scout at the floor", got, learned != nil)
	}
	c.seen(sello.EnvTest, 2*time.Second)
	select {
	case <-learned:
	default:
		t.Fatal("learned is still open after a verdict was seen")
	}
	if got := c.due(sello.EnvTest, lo, hi); got != 1900*time.Millisecond {
		t.Fatalf("due once learned: %s, want 1.9 s", got)
	}
	c.seen(sello.EnvTest, 2*time.Second) // a second verdict closes nothing twice
}
