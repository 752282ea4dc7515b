package api

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/sello-do/sello"
)

// The receivers' limits (docs/receptor.md, "Limits"): the receiver
// services are public, so every call is counted per client address and per
// receiver on the shared rate limiter before anything else is done, and
// runs under a deadline.

// receiverLimits are the server's limits, sello.DefaultReceiverLimits
// unless set.
func (s *Server) receiverLimits() sello.ReceiverLimits {
	if s.ReceiverLimits != nil {
		return *s.ReceiverLimits
	}
	return sello.DefaultReceiverLimits
}

// receiver adapts the handler of a receiver service (named service in
// the metrics): the call must be within the limits per address and per
// receiver (429 RATE_LIMITED with Retry-After otherwise), and its context
// and the reading of its body end at the limits' Timeout, so that a call
// past it stops where it is, signing and storing nothing more. The call,
// and its refusal with an error, are counted in the metrics.
func (s *Server) receiver(service string, h handlerFunc) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) (err error) {
		defer func() { s.Metrics.ReceiverCalled(service, err) }()
		lim := s.receiverLimits()
		if err := s.limitReceiver(r, lim); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(r.Context(), lim.Timeout)
		defer cancel()
		deadline, _ := ctx.Deadline()
		// Not every ResponseWriter reaches a connection (tests' recorders);
		// the context's deadline holds either way.
		_ = http.NewResponseController(w).SetReadDeadline(deadline)
		err = h(w, r.WithContext(ctx))
		if expired := sello.CallExpired(ctx); expired != nil && sello.ErrorCodeOf(err) == sello.CodeInternal {
			// A query cut short by the deadline.
			return expired
		}
		return err
	})
}

// limitReceiver counts a receiver call under its client address and then,
// when the path names an environment and a well-formed RNC, under that
// receiver in that environment (a flood of a tenant's TesteCF receiver
// leaves its eCF one alone). Returns RATE_LIMITED.
func (s *Server) limitReceiver(r *http.Request, lim sello.ReceiverLimits) error {
	addr := clientAddress(r, s.TrustedProxies)
	if err := s.allowReceiver(r.Context(), "receptor:addr:"+addr, lim.PerAddress, sello.Textf("from your address")); err != nil {
		return err
	}
	if env, rnc, err := receiverPath(r); err == nil {
		return s.allowReceiver(r.Context(), "receptor:rnc:"+string(env)+":"+rnc, lim.PerTenant, sello.Textf("to this receiver"))
	}
	return nil
}

// allowReceiver takes one request of key's bucket under plan. Returns
// RATE_LIMITED, saying whose limit it is (what).
func (s *Server) allowReceiver(ctx context.Context, key string, plan sello.RatePlan, what sello.Text) error {
	d, err := s.RateLimiter.Allow(ctx, key, plan)
	if err != nil {
		return fmt.Errorf("receiver rate limit: %w", err)
	} else if d.Allowed {
		return nil
	}
	retry := max(1, ceilSeconds(d.RetryAfter))
	e := sello.Errorf(sello.CodeRateLimited, "Too many requests %s (%g/s, %d at once). Retry after %d s.", what, plan.Rate, plan.Burst, retry)
	e.RetryAfterSeconds = retry
	return e
}

// clientAddress is the address a receiver call is counted under: the
// client's address (clientIP), an IPv6 address as its /64, what one
// subscriber is given.
func clientAddress(r *http.Request, trusted []netip.Prefix) string {
	addr, ok := clientIP(r, trusted)
	if !ok {
		return r.RemoteAddr
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

// clientIP is the client's address as the API sees it: the connection's
// peer; or, when the peer is one of trusted (the reverse proxies in front
// of the server), the right-most address of X-Forwarded-For that is not
// (the one the nearest trusted proxy saw), since the left part of the
// header is whatever the client wrote. False when the peer is not an
// ip:port (a test's handler called directly).
func clientIP(r *http.Request, trusted []netip.Prefix) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	addr := ap.Addr().Unmap()
	if isTrusted(addr, trusted) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop, ok := parseHop(hops[i])
			if !ok {
				break
			}
			addr = hop
			if !isTrusted(hop, trusted) {
				break
			}
		}
	}
	return addr, true
}

// parseHop reads one address of X-Forwarded-For, with or without a port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
