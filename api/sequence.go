package api

import (
	"net/http"
	"time"

	"github.com/sello-do/sello"
)

// sequenceBody is the success body carrying one range.
type sequenceBody struct {
	OK            bool                   `json:"ok"`
	Sequence      sello.SequenceResource `json:"sequence"`
	CorrelationID string                 `json:"correlationId"`
}

// handleCreateSequence registers a DGII-authorized range of the tenant in
// the environment (sello.RegisterSequence, as the CLI's sequences add):
// 201 with the range; 400 for a malformed range or an expiry missing or
// out of place; 422 for a range already expired or overlapping a
// registered one.
func (s *Server) handleCreateSequence(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req sello.SequenceRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	now := s.now()
	seq, err := sello.RegisterSequence(r.Context(), s.Store, p.Tenant.ID, p.Env, req, now)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, sequenceBody{OK: true, Sequence: seq.Resource(now), CorrelationID: correlationID(r.Context())})
	return nil
}

// handleListSequences lists a page of the tenant's ranges in the
// environment by type and start, with the numbers used and left, the next
// one and the state. A tenant has a few ranges, read whole and paged here
// (pageOf).
func (s *Server) handleListSequences(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	l := newListQuery(r.URL.Query(), "cursor", "limit")
	pq := l.page()
	if err := l.err(); err != nil {
		return err
	}
	seqs, err := s.Store.FindSequences(r.Context(), p.Tenant.ID, p.Env)
	if err != nil {
		return err
	}
	seqs, next, err := pageOf(seqs, pq, func(s *sello.Sequence) (time.Time, string) { return s.CreatedAt, s.ID })
	if err != nil {
		return err
	}
	now := s.now()
	out := make([]sello.SequenceResource, len(seqs))
	for i, seq := range seqs {
		out[i] = seq.Resource(now)
	}
	writeList(w, r, out, next)
	return nil
}
