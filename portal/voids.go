package portal

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sello-do/sello"
)

// The Anulaciones pages: the company's voids of unused e-NCF ranges in one
// environment (DGII's ANECF, FACTS §1.9) with DGII's answer, as GET
// /{env}/anulaciones lists them; each void's page with its ranges, DGII's
// answer and the signed ANECF to download; and the form that voids ranges
// (sello.CreateVoid, as POST /{env}/anulaciones and sello voids add),
// after a page that shows what will be voided. Voiding is fiscal
// administration: owners, administrators and accountants void; the others
// read.

func voidsPath(env sello.Environment) string           { return envPagePath(env, "anulaciones") }
func voidNewPath(env sello.Environment) string         { return envPagePath(env, "anulaciones", "nueva") }
func voidPath(env sello.Environment, id string) string { return envPagePath(env, "anulaciones", id) }
func voidStatePath(env sello.Environment, id string) string {
	return envPagePath(env, "anulaciones", id, "estado")
}
func voidXMLPath(env sello.Environment, id string) string {
	return envPagePath(env, "anulaciones", id, "xml")
}

// voidFormRows is how many ranges the form takes at once (DGII takes up
// to 10 types and 10,000 ranges of a type in one void; the API takes
// them all).
const voidFormRows = 5

// voidsPageSize is how many voids a page of the list shows.
const voidsPageSize = 50

// voidStateKeys are the catalogue keys of a void's states.
var voidStateKeys = map[sello.VoidState]string{
	sello.VoidPending:           "a void's state: pending",
	sello.VoidAccepted:          "a void's state: accepted",
	sello.VoidPartiallyAccepted: "a void's state: partially accepted",
	sello.VoidRejected:          "a void's state: rejected",
	sello.VoidFailed:            "a void's state: failed",
}

// voidsView is the list of voids.
type voidsView struct {
	Env       sello.Environment
	Voids     []*sello.Void
	CanManage bool
	// Older is the next page's URL, "" on the last; Newest the first
	// page's, "" on it.
	Older, Newest string
}

// handleVoids lists a page of the company's voids in the environment,
// newest first.
func (s *Server) handleVoids(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	cursor := r.URL.Query().Get("cursor")
	voids, next, err := s.Store.ListVoids(r.Context(), v.Tenant.ID, env, sello.VoidFilter{Cursor: cursor, Limit: voidsPageSize})
	if err != nil {
		return err
	}
	view := voidsView{Env: env, Voids: voids, CanManage: canManage(v, fiscalManagers)}
	if next != "" {
		view.Older = voidsPath(env) + "?cursor=" + next
	}
	if cursor != "" {
		view.Newest = voidsPath(env)
	}
	s.render(w, r, http.StatusOK, voidsPage(s.fiscalLayout(r, v, v.T("Voids")), view))
	return nil
}

// voidRow is one range of the form, as typed.
type voidRow struct {
	Type, From, To string
}

// voidForm is the form that voids ranges; Confirm is its second step,
// which shows the ranges (Ranges, Count) and sends them with Key, the
// void's idempotency key: sending the confirmation twice voids once.
type voidForm struct {
	Env    sello.Environment
	Rows   []voidRow
	Error  *formError
	Ranges []sello.VoidRange
	Count  int64
	Key    string
}

// handleVoidNew shows the form that voids ranges.
func (s *Server) handleVoidNew(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, fiscalManagers...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	f := voidForm{Env: env, Rows: make([]voidRow, voidFormRows)}
	for i := range f.Rows {
		f.Rows[i].Type = string(sello.TypeCreditoFiscal)
	}
	s.render(w, r, http.StatusOK, voidNewPage(s.layout(r, v, v.T("Void unused numbers")), f))
	return nil
}

// handleVoidCreate takes the form in two steps. The first (no step) checks
// the ranges on their own (sello.VoidRequest.Check) and shows them with
// how many numbers they hold, to confirm. The second (step=void) voids
// them through sello.CreateVoid, which refuses numbers outside the
// company's ranges, used by a document, or voided already; the void is
// audited (void.created) and its page shown, pending until the worker has
// DGII's answer. A refusal shows the form again with the ranges typed.
func (s *Server) handleVoidCreate(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, fiscalManagers...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	f := voidForm{Env: env}
	types, froms, tos := r.PostForm["type"], r.PostForm["from"], r.PostForm["to"]
	var req sello.VoidRequest
	for i := 0; i < voidFormRows && i < len(types); i++ {
		row := voidRow{Type: strings.TrimSpace(types[i])}
		if i < len(froms) {
			row.From = strings.TrimSpace(froms[i])
		}
		if i < len(tos) {
			row.To = strings.TrimSpace(tos[i])
		}
		f.Rows = append(f.Rows, row)
	}
	fail := func(err error) error {
		fe := formErrorOf(v, err)
		if fe == nil {
			return err
		}
		f.Error = fe
		for len(f.Rows) < voidFormRows {
			f.Rows = append(f.Rows, voidRow{Type: string(sello.TypeCreditoFiscal)})
		}
		s.render(w, r, http.StatusBadRequest, voidNewPage(s.layout(r, v, v.T("Void unused numbers")), f))
		return nil
	}
	for _, row := range f.Rows {
		if row.From == "" && row.To == "" {
			continue // a row left empty
		}
		rr := sello.VoidRangeRequest{Type: row.Type}
		if rr.From, err = parseNumber(v, row.From, "From"); err != nil {
			return fail(err)
		}
		if row.To == "" {
			rr.To = rr.From // one number
		} else if rr.To, err = parseNumber(v, row.To, "To"); err != nil {
			return fail(err)
		}
		req.Ranges = append(req.Ranges, rr)
	}
	ranges, err := req.Check()
	if err != nil {
		return fail(err)
	}
	if r.PostFormValue("step") != "void" {
		f.Ranges, f.Key = ranges, sello.NewID()
		for _, rg := range ranges {
			f.Count += rg.Count()
		}
		s.render(w, r, http.StatusOK, voidConfirmPage(s.layout(r, v, v.T("Confirm the void")), f))
		return nil
	}
	body, _ := json.Marshal(req)
	hash := sha256.Sum256(body)
	key := strings.TrimSpace(r.PostFormValue("key"))
	if len(key) > 255 {
		key = key[:255]
	}
	void, replayed, err := sello.CreateVoid(r.Context(), s.Store, sello.VoidDraft{
		TenantID: v.Tenant.ID, Environment: env, Request: req, IdempotencyKey: key, RequestHash: hash[:]})
	if err != nil {
		return fail(err)
	}
	if !replayed {
		res := void.Resource()
		if err := s.auditFiscal(r.Context(), v, "void.created", void.ID, voidAudit{Environment: env, Ranges: res.Ranges, Count: res.Count}); err != nil {
			return err
		}
	}
	s.redirect(w, r, voidPath(env, void.ID))
	return nil
}

// voidAudit is what the audit log keeps of a void created.
type voidAudit struct {
	Environment sello.Environment         `json:"environment"`
	Ranges      []sello.VoidRangeResource `json:"ranges"`
	Count       int64                     `json:"count"`
}

// voidView is one void's page.
type voidView struct {
	Env  sello.Environment
	Void *sello.Void
}

// Waiting reports whether the void waits for DGII's answer (the page then
// refreshes its state).
func (view voidView) Waiting() bool { return !view.Void.State.Final() }

// findVoid is the company's void of the path's {id} in the path's
// environment. Another company's, or another environment's, is NOT_FOUND.
func (s *Server) findVoid(r *http.Request, v *visit) (voidView, error) {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return voidView{}, err
	}
	void, err := s.Store.FindVoid(r.Context(), v.Tenant.ID, env, r.PathValue("id"))
	if err != nil {
		return voidView{}, err
	}
	return voidView{Env: env, Void: void}, nil
}

// handleVoid shows one void: its ranges, its state and DGII's answer, the
// signed ANECF once the worker has signed it.
func (s *Server) handleVoid(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := s.findVoid(r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, voidPage(s.layout(r, v, v.T("Void")), view))
	return nil
}

// handleVoidState is the void's state and DGII's answer alone: what htmx
// swaps in while the void waits for DGII.
func (s *Server) handleVoidState(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := s.findVoid(r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, voidState(s.layout(r, v, v.T("Void")), view))
	return nil
}

// handleVoidXML downloads the signed ANECF exactly as sent to DGII (as GET
// /{env}/anulaciones/{id}/xml). NOT_FOUND until the worker has signed it.
func (s *Server) handleVoidXML(w http.ResponseWriter, r *http.Request, v *visit) error {
	view, err := s.findVoid(r, v)
	if err != nil {
		return err
	}
	if view.Void.ANECF == nil {
		return pageError(sello.CodeNotFound, v.T("The void has no signed ANECF yet: the worker signs it before sending it to DGII."))
	}
	writeFile(w, "application/xml", v.Tenant.RNC+"ANECF-"+view.Void.ID+".xml", view.Void.ANECF)
	return nil
}
