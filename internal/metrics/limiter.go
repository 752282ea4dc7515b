package metrics

import (
	"context"
	"strings"

	"github.com/sello-do/sello"
)

// RateLimiter returns l counting its refusals in
// sello_rate_limit_rejections_total, under the limit its key names (see
// limitName); l itself with a nil m.
func (m *Metrics) RateLimiter(l sello.RateLimiter) sello.RateLimiter {
	if m == nil {
		return l
	}
	return &countingLimiter{next: l, m: m}
}

// countingLimiter is a sello.RateLimiter that counts refusals.
type countingLimiter struct {
	next sello.RateLimiter
	m    *Metrics
}

// Allow implements sello.RateLimiter.
func (c *countingLimiter) Allow(ctx context.Context, key string, plan sello.RatePlan) (sello.RateDecision, error) {
	d, err := c.next.Allow(ctx, key, plan)
	if err == nil && !d.Allowed {
		c.m.rateLimited.WithLabelValues(limitName(key)).Inc()
	}
	return d, err
}

// limitName is the limit a rate limiter's key counts against, from the
// key's prefix, which the code writes (what follows it is a key's id, an
// address, an RNC or an email): "key:…" is an API key's (api_key);
// "receptor:addr:…" a receiver caller's address's (receiver_address);
// "receptor:rnc:…" a receiver's (receiver); "portal-login-address:…" and
// the portal's other throttles are portal_login_address and so on.
// Anything else is "other", so that the label's values stay a fixed set.
func limitName(key string) string {
	prefix, rest, _ := strings.Cut(key, ":")
	switch {
	case prefix == "key":
		return "api_key"
	case prefix == "receptor" && strings.HasPrefix(rest, "addr:"):
		return "receiver_address"
	case prefix == "receptor" && strings.HasPrefix(rest, "rnc:"):
		return "receiver"
	case strings.HasPrefix(prefix, "portal-") && isWord(prefix):
		return strings.ReplaceAll(prefix, "-", "_")
	}
	return "other"
}

// isWord reports whether s is lower-case letters and dashes.
func isWord(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}
