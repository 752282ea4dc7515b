package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
)

// testMetricsHooks checks what the metrics read of the store: every
// committed write is observed, with its group size, and the unfinished
// jobs are counted by kind and state, within the limit.
func testMetricsHooks(t *testing.T, open Open) {
	e := newEnv(t, open)
	tn := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	var mu sync.Mutex
	var commits, pieces int
	e.s.ObserveCommits(func(group int, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if group < 1 || took < 0 {
			t.Errorf("commit observed with group %d, took %s", group, took)
		}
		commits++
		pieces += group
	})
	for range 3 {
		MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
	}
	mu.Lock()
	// Three documents, each committed alone or with others.
	if pieces != 3 || commits < 1 || commits > 3 {
		t.Errorf("observed %d commits of %d writes, want 1–3 commits of 3", commits, pieces)
	}
	mu.Unlock()

	counts, err := e.s.CountJobs(t.Context(), 0)
	if err != nil {
		t.Fatalf("CountJobs: %v", err)
	}
	want := []jobs.Count{{Kind: sello.DocumentJob{}.Kind(), State: rivertype.JobStateAvailable, N: 3}}
	if !slices.Equal(counts, want) {
		t.Errorf("CountJobs = %+v, want %+v", counts, want)
	}
	counts, err = e.s.CountJobs(t.Context(), 2)
	if err != nil {
		t.Fatalf("CountJobs limited: %v", err)
	}
	if total := sumCounts(counts); total != 2 {
		t.Errorf("CountJobs(limit 2) counted %d jobs (%+v), want 2", total, counts)
	}
}

func sumCounts(cs []jobs.Count) int {
	n := 0
	for _, c := range cs {
		n += c.N
	}
	return n
}
