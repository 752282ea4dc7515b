package metrics

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
)

// Source is what the figures read at scrape time come from: the store.
type Source struct {
	// Reachability returns DGII's reachability in env
	// (sello.ReachabilityStore's FindReachability).
	Reachability func(ctx context.Context, env sello.Environment) (*sello.Reachability, error)
	// CountJobs counts River's unfinished jobs by kind and state, reading
	// at most limit of them (the stores' CountJobs).
	CountJobs func(ctx context.Context, limit int) ([]jobs.Count, error)
}

// How often, and for how long at most, a scrape reads the store: scrapes
// within storeTTL of a read get its figures again.
const (
	storeTTL     = 5 * time.Second
	storeTimeout = 2 * time.Second
)

var (
	dgiiStateDesc = prometheus.NewDesc("sello_dgii_state",
		"DGII's reachability in an environment, as the store records it: 1 for its current state (available, contingency or draining), 0 for the others.",
		[]string{"environment", "state"}, nil)
	queueJobsDesc = prometheus.NewDesc("sello_queue_jobs",
		fmt.Sprintf("River's jobs not finished, by kind and state (available, pending, retryable, running, scheduled), counted at scrape time (at most %d of them).", jobs.MaxCounted),
		[]string{"kind", "state"}, nil)
)

// dgiiStates are sello_dgii_state's states.
var dgiiStates = []sello.DGIIState{sello.DGIIAvailable, sello.DGIIContingency, sello.DGIIDraining}

// WatchStore adds the figures read from the store at scrape time:
// sello_dgii_state and sello_queue_jobs. A scrape reads them at most once
// every storeTTL, within storeTimeout; a failed read counts in
// sello_metrics_store_errors_total and leaves its figures out.
func (m *Metrics) WatchStore(src Source) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&storeCollector{src: src, errors: m.scrapeErrors, kinds: map[string]bool{}})
}

// storeCollector is a prometheus.Collector of the store's figures.
type storeCollector struct {
	src    Source
	errors prometheus.Counter

	// mu is held through a read: concurrent scrapes wait for one read.
	mu     sync.Mutex
	at     time.Time
	cached []prometheus.Metric
	// kinds are the job kinds seen since the start: each is reported
	// with zeros in the states where it has no job, rather than vanish.
	kinds map[string]bool
}

// Describe implements prometheus.Collector.
func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- dgiiStateDesc
	ch <- queueJobsDesc
}

// Collect implements prometheus.Collector.
func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cached == nil || time.Since(c.at) >= storeTTL {
		c.cached, c.at = c.read(), time.Now()
	}
	for _, m := range c.cached {
		ch <- m
	}
}

// read reads the figures from the store.
func (c *storeCollector) read() []prometheus.Metric {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	out := []prometheus.Metric{}
	for _, env := range sello.Environments {
		r, err := c.src.Reachability(ctx, env)
		if err != nil {
			c.errors.Inc()
			break
		}
		for _, s := range dgiiStates {
			v := 0.0
			if r.State == s {
				v = 1
			}
			out = append(out, gauge(dgiiStateDesc, v, string(env), string(s)))
		}
	}
	counts, err := c.src.CountJobs(ctx, jobs.MaxCounted)
	if err != nil {
		c.errors.Inc()
		return out
	}
	n := map[string]map[rivertype.JobState]int{}
	for _, jc := range counts {
		c.kinds[jc.Kind] = true
		if n[jc.Kind] == nil {
			n[jc.Kind] = map[rivertype.JobState]int{}
		}
		n[jc.Kind][jc.State] += jc.N
	}
	for kind := range c.kinds {
		for _, s := range jobs.LiveStates {
			out = append(out, gauge(queueJobsDesc, float64(n[kind][s]), kind, string(s)))
		}
	}
	return out
}
