package api

import (
	"time"

	"github.com/sello-do/sello"
)

// NoKeyUses makes s record no key's use: the baseline of
// BenchmarkAuthenticatedRequest. Call it before Handler.
func NoKeyUses(s *Server) { s.noKeyUses = true }

// KeyUsesEvery makes s write a key's use at most once per every.
func KeyUsesEvery(s *Server, every time.Duration) { s.keyUses = &sello.APIKeyUses{Every: every} }

// ReadChunked is the receivers' reading of an uploaded part.
var ReadChunked = readChunked
