package worker

import (
	"math/rand/v2"
	"time"
)

// maxAttempts bounds the failures of a step that cannot be DGII's fault
// (building or signing the XML): past it the document is failed.
const maxAttempts = 12

// retryDelay is the wait before attempt+1: 2^attempt seconds up to five
// minutes, ±20% jitter.
func retryDelay(attempt int) time.Duration {
	d := 5 * time.Minute
	if attempt < 9 {
		d = min(d, time.Duration(1<<attempt)*time.Second)
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}
