package worker

import (
	"sync"
	"time"

	"github.com/sello-do/sello"
)

// verdictClock learns how long DGII takes to judge a document after its
// send, per environment, so that the first query for the verdict comes when
// the verdict is likely ready: querying on a fixed short step asks DGII again
// and again while it validates (eight queries a document when validation
// takes 2 s), each a round trip for both sides.
//
// It keeps a moving average of the delays after which verdicts were seen.
// A delay seen is an upper bound of DGII's (the verdict may have been ready
// earlier), so the first query goes a little before the average: a verdict
// seen at once pulls the average down, an En Proceso answer pushes it up.
//
// Until a first verdict is seen (a node that has just started) the delay is
// unknown. One document sent then, the scout, asks on the short step; the
// documents sent while it does so wait for what it learns (at most
// scoutFor) instead of each asking on the same step: on a node that starts
// under load that was most of its queries (8,400 for 3,000 documents with a
// 2 s delay, ~4 in 5 of them from the documents sent in the first 2 s).
type verdictClock struct {
	mu  sync.Mutex
	env map[sello.Environment]*envClock
}

// envClock is what the clock knows of one environment.
type envClock struct {
	avg     time.Duration // 0: no verdict seen yet
	learned chan struct{} // closed when avg is first set
	scout   time.Time     // until when the scout asks alone
}

// scoutFor is how long the scout asks alone (at most HoldFor): the longest
// a document sent before any verdict is seen waits for its first query.
const scoutFor = 5 * time.Second

// verdictLead is the share of the learned delay after which the first query
// goes.
const verdictLead = 0.95

// firstPoll is how long after a send to ask for the verdict: the learned
// delay's verdictLead, between lo and hi. While nothing is learned the
// first document sent, and the first after every scoutFor, asks after lo
// (the scout); any other waits scoutFor, or until learned is closed, when it
// asks at the first poll the learned delay gives (see due).
func (c *verdictClock) firstPoll(env sello.Environment, lo, hi, scoutFor time.Duration, now time.Time) (d time.Duration, learned <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.of(env)
	if e.avg > 0 {
		return bounded(e.avg, lo, hi), nil
	}
	if !now.Before(e.scout) {
		e.scout = now.Add(scoutFor)
		return lo, nil
	}
	return scoutFor, e.learned
}

// due is how long after a send the first query goes now that the delay is
// learned (firstPoll's known case).
func (c *verdictClock) due(env sello.Environment, lo, hi time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bounded(c.of(env).avg, lo, hi)
}

// bounded is avg's verdictLead between lo and hi.
func bounded(avg, lo, hi time.Duration) time.Duration {
	return min(max(time.Duration(float64(avg)*verdictLead), lo), hi)
}

// of is env's clock, made on first use; c.mu is held.
func (c *verdictClock) of(env sello.Environment) *envClock {
	e := c.env[env]
	if e == nil {
		if c.env == nil {
			c.env = map[sello.Environment]*envClock{}
		}
		e = &envClock{learned: make(chan struct{})}
		c.env[env] = e
	}
	return e
}

// seen records that a verdict was there d after the send. One delay moves
// the average at most to half or to twice what it was, so an odd slow
// document does not hold back the verdicts of the ones that follow.
func (c *verdictClock) seen(env sello.Environment, d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.of(env)
	if e.avg > 0 {
		d = min(max(d, e.avg/2), 2*e.avg)
		e.avg += (d - e.avg) / 8
		return
	}
	e.avg = d
	close(e.learned)
}
