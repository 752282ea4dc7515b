package api

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/metrics"
	"go.opentelemetry.io/otel/trace"
)

// MaxBodyBytes is the largest request body accepted (DESIGN §2).
const MaxBodyBytes = 2 << 20

// MaxBatchENCFs is the most e-NCFs one status/batch request may ask for.
const MaxBatchENCFs = 1000

// Server is Sello's public API. Set the fields, then serve Handler().
type Server struct {
	Store       sello.Store
	RateLimiter sello.RateLimiter
	// MasterKey opens the tenants' certificates, which sign their
	// receivers' acuses (ARECF).
	MasterKey *sello.MasterKey
	// ReceiverTrust are the CAs the receivers trust to vouch for their
	// signers (serve --receiver-trust-roots): with them, eCF refuses a
	// signer that does not chain to them; nil trusts nobody and refuses
	// nobody (sello.TrustRoots.CheckSigner).
	ReceiverTrust *sello.TrustRoots
	// ReceiverLimits bound the receivers' calls (docs/receptor.md,
	// "Limits"); nil for sello.DefaultReceiverLimits.
	ReceiverLimits *sello.ReceiverLimits
	// TrustedProxies are the addresses of the reverse proxies in front of
	// the server: only a call from one of them is counted under the
	// address its X-Forwarded-For names (clientAddress).
	TrustedProxies []netip.Prefix
	Logger         *slog.Logger
	// TracerProvider makes a span for every request, the root of its
	// trace (docs/tracing.md); nil, tracing off, makes none.
	TracerProvider trace.TracerProvider
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Ready reports whether the service can take traffic (GET /readyz);
	// nil means always ready.
	Ready func(ctx context.Context) error
	// Metrics observes the requests, the documents created, the
	// receivers' calls and refusals; nil observes nothing.
	Metrics *metrics.Metrics

	// seedKey makes the receivers' seeds: derived from MasterKey, so every
	// node shares it; random (this process's only) without one.
	seedKey []byte
	// acuseKeys keeps the tenants' opened keys that sign their acuses.
	acuseKeys sello.KeyCache
	// receiverTokens keeps the receivers' tokens found in the store.
	receiverTokens sello.TokenCache
	// keyUses writes the API keys' last use, at most once a minute per
	// key; nil records nothing (only the benchmark's baseline).
	keyUses *sello.APIKeyUses
	// noKeyUses keeps Handler from setting keyUses (export_test.go).
	noKeyUses bool
	// deprecations replaces deprecatedRoutes (tests); nil: the table.
	deprecations map[string]deprecation
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Handler returns the HTTP handler of the whole API.
func (s *Server) Handler() http.Handler {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.RateLimiter == nil {
		s.RateLimiter = sello.NewMemoryRateLimiter()
	}
	if s.seedKey == nil {
		if s.MasterKey != nil {
			s.seedKey = s.MasterKey.DeriveKey("sello receiver seeds")
		} else {
			s.seedKey = make([]byte, 32)
			rand.Read(s.seedKey)
		}
	}
	if s.keyUses == nil && !s.noKeyUses {
		s.keyUses = &sello.APIKeyUses{}
	}
	mux := http.NewServeMux()
	s.routes(mux)
	deprecations := s.deprecations
	if deprecations == nil {
		deprecations = deprecatedRoutes
	}
	return s.withCorrelation(s.withTrace(s.withRecover(s.withAccessLog(withReceiverCase(s.Metrics.Instrument(withDeprecation(s.withUnmatched(mux), mux, deprecations)))))))
}

// handlerFunc is a handler that returns its error to one adapter.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts h to http.Handler, writing any error as the error body.
func (s *Server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}
