package main

import (
	"context"
	"log/slog"
	"time"
)

// rateLimitPruneInterval is how often serve deletes the buckets of a rate
// limiter kept in the database that are full again.
const rateLimitPruneInterval = time.Minute

// bucketPruner is a rate limiter whose buckets live in the database
// (postgres.RateLimiter).
type bucketPruner interface {
	Prune(ctx context.Context) (int64, error)
}

// startPruning deletes p's full buckets every rateLimitPruneInterval until
// stop is called: a flood from many addresses, or to many RNCs (each a
// bucket of the receivers' limits), leaves no rows once its buckets
// refill. A failure is logged and tried again at the next tick.
func startPruning(p bucketPruner, logger *slog.Logger) (stop func()) {
	return every(rateLimitPruneInterval, rateLimitPruneInterval/2, func(ctx context.Context) {
		n, err := p.Prune(ctx)
		if err != nil && ctx.Err() != context.Canceled { // not when stopping; a timeout is worth a warning
			logger.Warn("prune rate limits", "err", err)
		} else if n > 0 {
			logger.Debug("rate limit buckets pruned", "buckets", n)
		}
	})
}
