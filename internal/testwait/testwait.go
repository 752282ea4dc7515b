// Package testwait is how tests wait for a state that other goroutines or
// processes change, when no signal tells them: check it every tick until
// it holds or a deadline passes. Tests never sleep for a fixed time.
package testwait

import "time"

// Within checks cond every tick until it holds, and reports whether it did
// within d.
func Within(d, tick time.Duration, cond func() bool) bool {
	t := time.NewTicker(tick)
	defer t.Stop()
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for !cond() {
		select {
		case <-t.C:
		case <-timeout.C:
			return cond()
		}
	}
	return true
}
