package portal

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
	"github.com/sello-do/sello/pdf"
)

// The Secuencias page: the company's DGII-authorized e-NCF ranges in one
// environment, each with its numbers used and left, the next one, its
// expiry and state (as GET /{env}/secuencias lists them), and the form
// that registers one (sello.RegisterSequence, as POST /{env}/secuencias
// and sello sequences add). Owners, administrators and accountants
// register; the others read.

func sequencesPath(env sello.Environment) string { return envPagePath(env, "secuencias") }

// sequenceForm is the form that registers a range, as typed.
type sequenceForm struct {
	Type, From, To, ExpiresOn string
}

// sequencesView is the Secuencias page.
type sequencesView struct {
	Env       sello.Environment
	Sequences []sello.SequenceResource
	// Low are the ids of the ranges due a warning (numbers running low,
	// expiry near), as the worker warns.
	Low       map[string][]sello.SequenceWarning
	CanManage bool
	Form      sequenceForm
	Error     *formError
}

// handleSequences lists the company's ranges in the environment.
func (s *Server) handleSequences(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	return s.renderSequences(w, r, v, http.StatusOK, sequencesView{Env: env, Form: sequenceForm{Type: string(sello.TypeCreditoFiscal)}})
}

// renderSequences renders the page with the company's ranges in view.Env
// and view's form.
func (s *Server) renderSequences(w http.ResponseWriter, r *http.Request, v *visit, status int, view sequencesView) error {
	seqs, err := s.Store.FindSequences(r.Context(), v.Tenant.ID, view.Env)
	if err != nil {
		return err
	}
	now := s.now()
	view.Low = map[string][]sello.SequenceWarning{}
	for _, seq := range seqs {
		view.Sequences = append(view.Sequences, seq.Resource(now))
		if ws := seq.Warnings(sello.SequenceThresholds{}, now); len(ws) > 0 {
			view.Low[seq.ID] = ws
		}
	}
	view.CanManage = canManage(v, fiscalManagers)
	s.render(w, r, status, sequencesPage(s.fiscalLayout(r, v, v.T("Sequences")), view))
	return nil
}

// handleSequenceCreate registers a range: the form's type, from, to and
// expiry through sello.RegisterSequence. A refusal shows the form again
// with the domain's message; a range registered is audited
// (sequence.created) and the page shows it.
func (s *Server) handleSequenceCreate(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, fiscalManagers...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	f := sequenceForm{
		Type: strings.TrimSpace(r.PostFormValue("type")), From: strings.TrimSpace(r.PostFormValue("from")),
		To: strings.TrimSpace(r.PostFormValue("to")), ExpiresOn: strings.TrimSpace(r.PostFormValue("expiresOn")),
	}
	fail := func(err error) error {
		fe := formErrorOf(v, err)
		if fe == nil {
			return err
		}
		return s.renderSequences(w, r, v, http.StatusBadRequest, sequencesView{Env: env, Form: f, Error: fe})
	}
	req := sello.SequenceRequest{Type: f.Type}
	if req.From, err = parseNumber(v, f.From, "From"); err != nil {
		return fail(err)
	}
	if req.To, err = parseNumber(v, f.To, "To"); err != nil {
		return fail(err)
	}
	if f.ExpiresOn != "" {
		req.ExpiresOn = &f.ExpiresOn
	}
	seq, err := sello.RegisterSequence(r.Context(), s.Store, v.Tenant.ID, env, req, s.now())
	if err != nil {
		return fail(err)
	}
	if err := s.auditFiscal(r.Context(), v, "sequence.created", seq.ID, sequenceAudit{
		Environment: env, Type: seq.Type.Code(), From: seq.From, To: seq.To, ExpiresOn: seq.ExpiresOn,
	}); err != nil {
		return err
	}
	s.redirect(w, r, sequencesPath(env)+"?done=sequence")
	return nil
}

// sequenceAudit is what the audit log keeps of a range registered.
type sequenceAudit struct {
	Environment sello.Environment `json:"environment"`
	Type        string            `json:"type"`
	From        int64             `json:"from"`
	To          int64             `json:"to"`
	ExpiresOn   *sello.Date       `json:"expiresOn"`
}

// parseNumber reads a sequential typed in a form (digits, the thousands
// separators people type left out). Returns INVALID_REQUEST naming the
// field (its catalogue key).
func parseNumber(v *visit, s, field string) (int64, error) {
	s = strings.NewReplacer(",", "", ".", "", " ", "").Replace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, pageError(sello.CodeInvalidRequest, v.T("%s: a whole number, like 1 or 500.", v.T(field)))
	}
	return n, nil
}

// sequenceStateKeys are the catalogue keys of a range's states.
var sequenceStateKeys = map[sello.SequenceState]string{
	sello.SequenceActive:    "a range's state: in use",
	sello.SequenceExpired:   "a range's state: expired",
	sello.SequenceExhausted: "a range's state: used up",
}

// sequenceExpiry is a range's expiry as the page shows it, "—" for none.
func sequenceExpiry(l *layoutData, d *sello.Date) string {
	if d == nil {
		return "—"
	}
	t := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
	return i18n.FormatDate(l.V.Lang, t)
}

// typeName is DGII's name of the type of code ("E31" or "31"), "" for
// none.
func typeName(code string) string {
	t, err := sello.ParseDocumentType(code)
	if err != nil {
		return ""
	}
	return pdf.TypeName(t)
}

// fiscalNumber writes n with thousands separators, as es-DO and en both
// write them: 1,000,000.
func fiscalNumber(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
