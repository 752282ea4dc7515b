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
type verdictClock struct {
	mu  sync.Mutex
	avg map[sello.Environment]time.Duration
}

// verdictLead is the share of the learned delay after which the first query
// goes.
const verdictLead = 0.95

// firstPoll is how long after a send to ask for the verdict: the learned
// delay's verdictLead, between lo and hi; lo until a verdict is seen.
func (c *verdictClock) firstPoll(env sello.Environment, lo, hi time.Duration) time.Duration {
	c.mu.Lock()
	avg := c.avg[env]
	c.mu.Unlock()
	return min(max(time.Duration(float64(avg)*verdictLead), lo), hi)
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
	if c.avg == nil {
		c.avg = map[sello.Environment]time.Duration{}
	}
	if avg, ok := c.avg[env]; ok {
		d = min(max(d, avg/2), 2*avg)
		c.avg[env] = avg + (d-avg)/8
	} else {
		c.avg[env] = d
	}
}
