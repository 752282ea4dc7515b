package api

// NoKeyUses makes s record no key's use: the baseline of
// BenchmarkAuthenticatedRequest. Call it before Handler.
func NoKeyUses(s *Server) { s.noKeyUses = true }
