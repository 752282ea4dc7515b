package storetest_test

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// The memory limiter is the reference the shared limiters must match.
func TestRunRateLimiterMemory(t *testing.T) {
	storetest.RunRateLimiter(t, func(t *testing.T) sello.RateLimiter { return sello.NewMemoryRateLimiter() })
}
