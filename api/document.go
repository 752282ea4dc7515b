package api

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// documentBody is the success body carrying one document.
type documentBody struct {
	OK            bool                   `json:"ok"`
	Document      sello.DocumentResource `json:"document"`
	CorrelationID string                 `json:"correlationId"`
}

// MaxIdempotencyKeyLen is the longest Idempotency-Key accepted.
const MaxIdempotencyKeyLen = 255

// createScope is the scope a create request needs: ecf:validate with
// ?validate=true, else ecf:create.
func createScope(r *http.Request) sello.Scope {
	if r.URL.Query().Get("validate") == "true" {
		return sello.ScopeValidate
	}
	return sello.ScopeCreate
}

// handleCreateDocument creates a document (202), or with ?validate=true
// runs every check of the create without writing anything or consuming a
// number (200, or the error the create would answer).
func (s *Server) handleCreateDocument(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	validate, err := parseValidate(r.URL.Query())
	if err != nil {
		return err
	}
	idemKey, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	doc, err := s.checkDocument(body, p)
	if err != nil {
		return err
	}
	if validate {
		return s.validateDocument(w, r, p, body, doc)
	}

	hash := sha256.Sum256(body)
	nd := s.newDocument(p, doc)
	nd.IdempotencyKey, nd.RequestHash = idemKey, hash[:]
	d, replayed, err := s.Store.CreateDocument(r.Context(), nd)
	if err != nil {
		return err
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	} else {
		s.Metrics.DocumentCreated(d.Environment)
	}
	writeJSON(w, http.StatusAccepted, documentBody{OK: true, Document: d.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// checkDocument decodes a document and checks it against DGII's rules,
// reporting every problem at once.
func (s *Server) checkDocument(body []byte, p *principal) (*ecf.Document, error) {
	return ecf.Parse(body, ecf.Issuance{TenantRNC: p.Tenant.RNC, Now: s.now()})
}

// newDocument is the store's create request for the checked document doc:
// once the store has taken its e-NCF, Prepare numbers doc (running the
// checks that need the number) and encodes it. A create and a pre-flight
// both go through it.
func (s *Server) newDocument(p *principal, doc *ecf.Document) sello.DocumentDraft {
	return sello.DocumentDraft{
		TenantID:    p.Tenant.ID,
		Environment: p.Env,
		Type:        doc.Type(),
		ENCF:        doc.ENCF(),
		Prepare: func(encf sello.ENCF, seq *sello.Sequence) (*sello.PreparedDocument, error) {
			if err := doc.Number(encf, seq); err != nil {
				return nil, err
			}
			payload, err := json.Marshal(doc)
			if err != nil {
				return nil, fmt.Errorf("marshal document: %w", err)
			}
			return &sello.PreparedDocument{
				Payload:   payload,
				Total:     doc.Total(),
				ITBIS:     doc.ITBIS(),
				BuyerRNC:  doc.BuyerRNC(),
				IssueDate: doc.IssueDate(),
			}, nil
		},
	}
}

// errDryRun rolls back a pre-flight's create once every check passed.
var errDryRun = errors.New("pre-flight: roll back")

// validateDocument answers a pre-flight: the create itself runs, in the
// store's own transaction, with every check a create runs (the number's
// range and expiry, an e-NCF already used: 409, no number left: 422
// SEQUENCE_EXHAUSTED, the checks that need the number), and is rolled back
// before anything is written, so no number is consumed. The answer shows
// doc without a number, since none was reserved.
func (s *Server) validateDocument(w http.ResponseWriter, r *http.Request, p *principal, body []byte, doc *ecf.Document) error {
	probe, err := s.checkDocument(body, p)
	if err != nil {
		return err
	}
	nd := s.newDocument(p, probe)
	prepare := nd.Prepare
	nd.Prepare = func(encf sello.ENCF, seq *sello.Sequence) (*sello.PreparedDocument, error) {
		if _, err := prepare(encf, seq); err != nil {
			return nil, err
		}
		return nil, errDryRun
	}
	switch _, _, err := s.Store.CreateDocument(r.Context(), nd); {
	case err == nil:
		return errors.New("pre-flight: the store created the document")
	case !errors.Is(err, errDryRun):
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		OK            bool          `json:"ok"`
		Valid         bool          `json:"valid"`
		Document      *ecf.Document `json:"document"`
		CorrelationID string        `json:"correlationId"`
	}{true, true, doc, correlationID(r.Context())})
	return nil
}

func parseValidate(q url.Values) (bool, error) {
	switch v := q.Get("validate"); v {
	case "true":
		return true, nil
	case "", "false":
		return false, nil
	default:
		var p sello.Problems
		p.Add("validate", "must be true or false")
		return false, p.Errorf(sello.CodeInvalidRequest, "Query parameter validate must be true or false, not %q.", v)
	}
}

// idempotencyKey returns the request's Idempotency-Key ("" when absent).
// Returns INVALID_REQUEST when it is empty, too long or not printable ASCII.
func idempotencyKey(r *http.Request) (string, error) {
	vals, ok := r.Header["Idempotency-Key"]
	if !ok {
		return "", nil
	}
	key := vals[0]
	if len(vals) > 1 || key == "" || len(key) > MaxIdempotencyKeyLen {
		return "", sello.Errorf(sello.CodeInvalidRequest, "Idempotency-Key must be one value of 1 to %d characters.", MaxIdempotencyKeyLen)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return "", sello.Errorf(sello.CodeInvalidRequest, "Idempotency-Key must be printable ASCII.")
		}
	}
	return key, nil
}

// batchResult is one entry of a status/batch answer.
type batchResult struct {
	ENCF     string                  `json:"encf"`
	Found    bool                    `json:"found"`
	Document *sello.DocumentResource `json:"document"` // null when not found
}

// handleStatusBatch answers the status of up to MaxBatchENCFs documents, in
// request order: the reconciliation source for webhook events (spec §4.1).
func (s *Server) handleStatusBatch(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req struct {
		ENCFs *[]string `json:"encfs"`
	}
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if req.ENCFs == nil {
		return requestInvalid([]problem{{"encfs", sello.Textf("required: an array of e-NCFs")}})
	}
	encfs := *req.ENCFs
	if len(encfs) == 0 || len(encfs) > MaxBatchENCFs {
		return requestInvalid([]problem{{"encfs", sello.Textf("must list 1 to %d e-NCFs, not %d", MaxBatchENCFs, len(encfs))}})
	}
	var problems []problem
	for i, e := range encfs {
		if _, err := sello.ParseENCF(e); err != nil {
			problems = append(problems, problem{fmt.Sprintf("encfs[%d]", i), sello.ErrorText(err)})
		}
	}
	if len(problems) > 0 {
		return requestInvalid(problems)
	}
	docs, err := s.Store.FindDocumentsByENCF(r.Context(), p.Tenant.ID, p.Env, uniq(encfs))
	if err != nil {
		return err
	}
	byENCF := make(map[string]*sello.Document, len(docs))
	for _, d := range docs {
		byENCF[d.ENCF] = d
	}
	results := make([]batchResult, len(encfs))
	for i, e := range encfs {
		results[i] = batchResult{ENCF: e}
		if d, ok := byENCF[e]; ok {
			res := d.Resource()
			results[i].Found, results[i].Document = true, &res
		}
	}
	writeJSON(w, http.StatusOK, struct {
		OK            bool          `json:"ok"`
		Results       []batchResult `json:"results"`
		CorrelationID string        `json:"correlationId"`
	}{true, results, correlationID(r.Context())})
	return nil
}

func uniq(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// handleGetDocument returns one document by e-NCF.
func (s *Server) handleGetDocument(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	encf := r.PathValue("encf")
	if _, err := sello.ParseENCF(encf); err != nil {
		return err
	}
	d, err := s.Store.FindDocument(r.Context(), p.Tenant.ID, p.Env, encf)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, documentBody{OK: true, Document: d.Resource(), CorrelationID: correlationID(r.Context())})
	return nil
}

// handleListDocuments returns a page of documents, newest first.
func (s *Server) handleListDocuments(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	f, err := parseDocumentFilter(r.URL.Query())
	if err != nil {
		return err
	}
	docs, next, err := s.Store.ListDocuments(r.Context(), p.Tenant.ID, p.Env, f)
	if err != nil {
		return err
	}
	res := make([]sello.DocumentResource, len(docs))
	for i, d := range docs {
		res[i] = d.Resource()
	}
	writeList(w, r, res, next)
	return nil
}

// parseDocumentFilter reads the list's query parameters, reporting every bad
// one. Returns INVALID_REQUEST.
func parseDocumentFilter(q url.Values) (sello.DocumentFilter, error) {
	f := sello.DocumentFilter{Limit: sello.DefaultPageSize, Cursor: q.Get("cursor")}
	l := newListQuery(q, "status", "type", "buyer", "encf", "from", "to", "cursor", "limit")
	if v := q.Get("status"); v != "" {
		st, err := sello.ParseStatus(v)
		if err != nil {
			l.p.AddText("status", sello.ErrorText(err))
		}
		f.Status = st
	}
	if v := q.Get("buyer"); v != "" {
		if err := sello.ValidateRNC(v); err != nil {
			l.p.AddText("buyer", sello.ErrorText(err))
		}
		f.BuyerRNC = v
	}
	if v := q.Get("encf"); v != "" {
		if _, err := sello.ParseENCF(v); err != nil {
			l.p.AddText("encf", sello.ErrorText(err))
		}
		f.ENCF = v
	}
	l.docType("type", &f.Type)
	l.time("from", &f.CreatedFrom)
	l.time("to", &f.CreatedTo)
	l.limit(&f.Limit)
	return f, l.err()
}
