package storetest_test

import (
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The memory limiter is the reference the shared limiters must match.
func TestRunRateLimiterMemory(t *testing.T) {
	storetest.RunRateLimiter(t, func(t *testing.T) sello.RateLimiter { return sello.NewMemoryRateLimiter() })
}
