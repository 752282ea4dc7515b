package dgiisim

import (
	"time"

	"github.com/sello-do/sello"
)

// Send is one document the simulator received, for tests and operators to
// inspect what reached "DGII".
type Send struct {
	Environment sello.Environment
	RNCEmisor   string
	ENCF        string
	TrackID     string // "" for an RFCE
	RFCE        bool
	Received    time.Time
	// Codigo is the verdict's code once ready (1, 2 or 4), 3 before.
	Codigo int
}

// Sends returns every send kept, oldest first.
func (s *Simulator) Sends() []Send {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	out := make([]Send, 0, len(s.order))
	for _, sub := range s.order {
		out = append(out, Send{
			Environment: sub.env, RNCEmisor: sub.rnc, ENCF: sub.encf, TrackID: sub.trackID,
			RFCE: sub.rfce, Received: sub.received, Codigo: sub.codigo(now),
		})
	}
	return out
}
