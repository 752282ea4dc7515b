package api

import (
	"crypto/sha256"
	"net/http"

	"github.com/sello-do/sello"
)

// voidBody is the success body carrying one void.
type voidBody struct {
	OK            bool               `json:"ok"`
	Void          sello.VoidResource `json:"void"`
	CorrelationID string             `json:"correlationId"`
}

// handleCreateVoid voids ranges of the tenant's e-NCFs in the environment
// (sello.CreateVoid, as the CLI's voids add): 202 with the void, pending
// until the worker has DGII's answer; 400 for malformed ranges or over
// DGII's limits; 422 for numbers outside the tenant's ranges, used by a
// document (pointing to a credit note, E34) or voided already. An
// Idempotency-Key replays the void it created.
func (s *Server) handleCreateVoid(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req sello.VoidRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	hash := sha256.Sum256(body)
	v, replayed, err := sello.CreateVoid(r.Context(), s.Store, sello.VoidDraft{
		TenantID: p.Tenant.ID, Environment: p.Env, Request: req, IdempotencyKey: key, RequestHash: hash[:]})
	if err != nil {
		return err
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusAccepted, voidBody{OK: true, Void: v.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// handleListVoids returns a page of the tenant's voids, newest first.
func (s *Server) handleListVoids(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	f := sello.VoidFilter{Limit: sello.DefaultPageSize, Cursor: r.URL.Query().Get("cursor")}
	l := newListQuery(r.URL.Query(), "cursor", "limit")
	l.limit(&f.Limit)
	if err := l.err(); err != nil {
		return err
	}
	voids, next, err := s.Store.ListVoids(r.Context(), p.Tenant.ID, p.Env, f)
	if err != nil {
		return err
	}
	out := make([]sello.VoidResource, len(voids))
	for i, v := range voids {
		out[i] = v.Resource()
	}
	writeList(w, r, out, next)
	return nil
}

// handleGetVoid returns one of the tenant's voids with DGII's answer.
func (s *Server) handleGetVoid(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	v, err := s.Store.FindVoid(r.Context(), p.Tenant.ID, p.Env, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, voidBody{OK: true, Void: v.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// handleGetVoidXML returns the signed ANECF exactly as sent to DGII.
// Returns NOT_FOUND until the worker has signed it.
func (s *Server) handleGetVoidXML(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	v, err := s.Store.FindVoid(r.Context(), p.Tenant.ID, p.Env, r.PathValue("id"))
	if err != nil {
		return err
	} else if v.ANECF == nil {
		return sello.Errorf(sello.CodeNotFound, "Void %s has no signed ANECF yet: the worker signs it before sending it to DGII.", v.ID)
	}
	writeArtifact(w, "application/xml", p.Tenant.RNC+"ANECF.xml", v.ANECF)
	return nil
}
