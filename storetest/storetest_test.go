package storetest_test

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The memory limiter is the reference the shared limiters must match.
func TestRunRateLimiterMemory(t *testing.T) {
	storetest.RunRateLimiter(t, func(t *testing.T, now func() time.Time) sello.RateLimiter {
		l := sello.NewMemoryRateLimiter()
		if now != nil {
			l.Now = now
		}
		return l
	})
}
