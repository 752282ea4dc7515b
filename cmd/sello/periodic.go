package main

import (
	"context"
	"sync"
	"time"
)

// every calls run every interval, each call with a context that ends after
// timeout or when stop is called, until stop is called; stop waits for a
// call in progress. run logs its own failures: the next tick tries again.
func every(interval, timeout time.Duration, run func(ctx context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			rctx, rcancel := context.WithTimeout(ctx, timeout)
			run(rctx)
			rcancel()
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
