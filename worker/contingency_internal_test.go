package worker

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
)

// reachStore answers the reachability calls from memory and counts the
// writes; the rest of sello.Store is not used.
type reachStore struct {
	sello.Store
	mu      sync.Mutex
	r       sello.Reachability
	writes  []sello.DGIIOutcome
	reads   int
	waiting []*sello.Document
}

func (s *reachStore) FindReachability(context.Context, sello.Environment) (*sello.Reachability, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	r := s.r
	return &r, nil
}

func (s *reachStore) RecordDGIIOutcome(_ context.Context, _ sello.Environment, o sello.DGIIOutcome, _ time.Duration) (*sello.Reachability, sello.DGIIState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, o)
	now := time.Now()
	switch o {
	case sello.DGIIFailed:
		s.r.FailingSince = &now
	case sello.DGIISucceeded:
		s.r.FailingSince, s.r.LastSuccess = nil, &now
	}
	r := s.r
	return &r, "", nil
}

func (s *reachStore) FindWaitingDocuments(context.Context, sello.Environment, int) ([]*sello.Document, error) {
	return s.waiting, nil
}

// TestObserve: failures are written at most once per refresh, and a
// success (LastSuccess recent) only when something was failing.
func TestObserve(t *testing.T) {
	ctx := t.Context()
	recent := time.Now()
	st := &reachStore{r: sello.Reachability{Environment: sello.EnvTest, State: sello.DGIIAvailable, LastSuccess: &recent}}
	w := New(Config{Store: st, ContingencyAfter: time.Hour}) // refresh: 1 s
	down := fmt.Errorf("send: %w", dgii.ErrUnavailable)

	for _, err := range []error{nil, nil, fmt.Errorf("refused: %w", &dgii.Error{Status: 400})} {
		w.observe(ctx, sello.EnvTest, err)
	}
	if len(st.writes) != 0 || st.reads != 1 {
		t.Fatalf("successes while clean: %v written, %d reads; want nothing written, one read kept", st.writes, st.reads)
	}
	for range 5 {
		w.observe(ctx, sello.EnvTest, down)
	}
	if len(st.writes) != 1 || st.writes[0] != sello.DGIIFailed {
		t.Fatalf("five failures in a row wrote %v, want one failure (once per refresh)", st.writes)
	}
	// The failure written is the process's view: the next success is
	// written, the one after it is not.
	w.observe(ctx, sello.EnvTest, nil)
	w.observe(ctx, sello.EnvTest, nil)
	if len(st.writes) != 2 || st.writes[1] != sello.DGIISucceeded {
		t.Fatalf("writes %v, want failed then succeeded once", st.writes)
	}
}

// TestObserveLastSuccess: in a clean environment a success is written when
// none is recorded, then once per sello.LastSuccessEvery, by one of the
// calls that succeed at once.
func TestObserveLastSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := &reachStore{r: *sello.NewReachability(sello.EnvTest)}
		w := New(Config{Store: st, ContingencyAfter: time.Minute}) // refresh: 1 s
		succeed := func(n int) {
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() { w.observe(ctx, sello.EnvTest, nil) })
			}
			wg.Wait()
		}

		succeed(8)
		if len(st.writes) != 1 || st.writes[0] != sello.DGIISucceeded || st.r.LastSuccess == nil {
			t.Fatalf("8 successes, none recorded before: wrote %v, want one success", st.writes)
		}
		time.Sleep(sello.LastSuccessEvery - time.Second)
		succeed(8)
		if len(st.writes) != 1 {
			t.Fatalf("8 successes %s later: wrote %v, want nothing more", sello.LastSuccessEvery-time.Second, st.writes)
		}
		time.Sleep(time.Second)
		succeed(8)
		if len(st.writes) != 2 {
			t.Fatalf("8 successes %s later: wrote %v, want one more success", sello.LastSuccessEvery, st.writes)
		}
	})
}

// TestWarnDeadline: a document waiting for 48 hours is logged, with its
// deadline, at most hourly; a younger one is not.
func TestWarnDeadline(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	var logs bytes.Buffer
	st := &reachStore{r: *sello.NewReachability(sello.EnvTest)}
	w := New(Config{Store: st, Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	w.remember(sello.EnvTest, &st.r, false)

	st.waiting = []*sello.Document{{ENCF: "E310000000007", CreatedAt: now.Add(-47 * time.Hour)}}
	if err := w.warnDeadline(ctx, sello.EnvTest); err != nil || logs.Len() != 0 {
		t.Fatalf("47 h: %v, logged %q; want nothing", err, logs.String())
	}
	st.waiting[0].CreatedAt = now.Add(-49 * time.Hour)
	for range 2 {
		if err := w.warnDeadline(ctx, sello.EnvTest); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), "approach DGII's deadline"); n != 1 {
		t.Fatalf("49 h, twice: logged %d warnings, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "oldest_encf=E310000000007") || !strings.Contains(logs.String(), "deadline=2026-11-27T15:00:00") {
		t.Fatalf("warning %q: want the e-NCF and its deadline (created + 72 h)", logs.String())
	}
}
