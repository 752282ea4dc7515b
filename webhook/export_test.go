package webhook

import "time"

// Control returns the dialer's Control check, for tests that call it
// directly the way net.Dialer does after resolving.
func Control(allowLoopback bool) func(network, address string) error {
	d := &dialer{allowLoopback: allowLoopback}
	return func(network, address string) error { return d.control(network, address, nil) }
}

// ParseRetryAfter exposes parseRetryAfter.
func ParseRetryAfter(v string, now time.Time) time.Duration { return parseRetryAfter(v, now) }
