package main

import (
	"context"
	"log/slog"
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
	return every(statsInterval, time.Minute, func(ctx context.Context) {
		start := time.Now()
		tables, err := k.AnalyzeStale(ctx)
		if err != nil && ctx.Err() != context.Canceled { // not when stopping; a timeout is worth a warning
			logger.Warn("analyze tables", "err", err)
		} else if len(tables) > 0 {
			logger.Debug("tables analyzed", "tables", tables, "took", time.Since(start))
		}
	})
}
