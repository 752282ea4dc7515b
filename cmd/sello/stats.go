package main

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// statsInterval is how often serve looks for tables of a PostgreSQL store
// whose planner statistics are missing or stale: often enough that a new
// database's first documents are analyzed within seconds (a look is one
// query on PostgreSQL's statistics views).
const statsInterval = 2 * time.Second

// statsKeeper is a store that analyzes its own tables when they need it
// (postgres.DB.AnalyzeStale).
type statsKeeper interface {
	AnalyzeStale(ctx context.Context) ([]string, error)
}

// startStats calls k.AnalyzeStale every statsInterval until stop is
// called. A failure is logged and tried again at the next tick.
func startStats(k statsKeeper, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(statsInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			pctx, pcancel := context.WithTimeout(ctx, time.Minute)
			start := time.Now()
			tables, err := k.AnalyzeStale(pctx)
			pcancel()
			if err != nil && ctx.Err() == nil {
				logger.Warn("analyze tables", "err", err)
			} else if len(tables) > 0 {
				logger.Debug("tables analyzed", "tables", tables, "took", time.Since(start))
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
