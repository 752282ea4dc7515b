package dgii

import (
	"fmt"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestReceptorForgetsExpiredTokens: the token map does not grow with every
// sender and receiver ever met. Once it holds receptorSweepMin slots, a new
// one first forgets those whose token expired, and keeps the live ones.
func TestReceptorForgetsExpiredTokens(t *testing.T) {
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	p := NewReceptor(ReceptorConfig{Now: func() time.Time { return now }})
	key := func(i int) receptorKey {
		return receptorKey{env: sello.EnvTest, rnc: fmt.Sprint(130000000 + i), base: "https://receptor.example"}
	}
	for i := range receptorSweepMin {
		s := p.slot(key(i))
		s.token, s.renewAt = "t", now.Add(time.Minute)
		if i%8 == 0 {
			s.renewAt = now.Add(time.Hour) // still live after the clock moves
		}
	}
	if got := len(p.tokens); got != receptorSweepMin {
		t.Fatalf("%d slots before the sweep, want %d", got, receptorSweepMin)
	}
	if p.slot(key(0)) != p.slot(key(0)) {
		t.Fatal("the same key got two slots")
	}
	now = now.Add(2 * time.Minute)
	p.slot(key(receptorSweepMin))
	if got, want := len(p.tokens), receptorSweepMin/8+1; got != want {
		t.Fatalf("%d slots after the sweep, want %d (the live ones and the new one)", got, want)
	}
	if _, ok := p.tokens[key(8)]; !ok {
		t.Fatal("a live token was forgotten")
	}
	if p.sweepAt != receptorSweepMin {
		t.Fatalf("next sweep at %d slots, want %d", p.sweepAt, receptorSweepMin)
	}
}
