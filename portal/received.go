package portal

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
	"github.com/sello-do/sello/pdf"
	"github.com/shopspring/decimal"
)

// The Recibidos pages: the e-CFs the company's suppliers sent to its
// receiver (docs/receptor.md), with DGII's confirmation of each and who
// signed it; one document's page, with its PDF and XML, and the company's
// commercial approval or rejection of it and how its sending goes; and
// the disputed approvals of the company's own documents (two signers'
// different verdicts). The reads are the store's the API's GET
// /{env}/documentos-recibidos makes; the approval is the store's
// ApproveInboundDocument, as POST /{env}/aprobaciones-comerciales records
// it (sello.ApprovalRequest.Check, sello.NewInboundApproval: the same
// rules, the same refusals). Everyone in the company reads; owners,
// administrators and accountants approve and reject.

// approvers are the roles that approve and reject received documents.
var approvers = []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleAccountant}

// canApprove reports whether the visitor's role approves and rejects.
func canApprove(v *visit) bool { return slices.Contains(approvers, v.Role) }

// The pages' paths, under the environment's /portal/{env}/recibidos.
func receivedPath(env sello.Environment) string { return "/portal/" + string(env) + "/recibidos" }
func receivedDocPath(env sello.Environment, id string) string {
	return receivedPath(env) + "/" + url.PathEscape(id)
}
func receivedActionPath(env sello.Environment, id, action string) string {
	return receivedDocPath(env, id) + "/" + action
}
func disputesPath(env sello.Environment) string { return receivedPath(env) + "/disputas" }

// issuedDocPath is the page of one of the company's own documents (the
// Documentos pages').
func issuedDocPath(env sello.Environment, encf string) string {
	return "/portal/" + string(env) + "/documentos/" + url.PathEscape(encf)
}

// receivedPageSize is how many documents a page of the list shows.
const receivedPageSize = 50

// The catalogue keys of the states the pages show. A document is
// masculine in Spanish (el comprobante), an approval's sending feminine
// (la aprobación): the states have keys of their own.
var (
	inboundDGIIKeys = map[string]string{
		sello.DGIIPending:  "a received document's DGII state: pending",
		sello.DGIIAccepted: "a received document's DGII state: accepted",
		sello.DGIIRejected: "a received document's DGII state: rejected",
		sello.DGIINotFound: "a received document's DGII state: not_found",
		sello.DGIIRefuted:  "a received document's DGII state: refuted",
	}
	// inboundDGIIMeaningKeys say what each state means and what follows
	// (docs/receptor.md, "Confirmation with DGII").
	inboundDGIIMeaningKeys = map[string]string{
		sello.DGIIPending:  "DGII has not answered yet. Sello keeps asking, often at first and less often later, for 72 hours.",
		sello.DGIIAccepted: "DGII accepted this very document: it may be approved or rejected.",
		sello.DGIIRejected: "DGII rejected this document: it is null for tax purposes. Do not pay it.",
		sello.DGIINotFound: "DGII has no accepted e-CF of this supplier, e-NCF and security code yet: the supplier may have sent it to you before DGII. Sello keeps asking for 72 hours after the receipt. Do not approve or pay it until DGII accepts it.",
		sello.DGIIRefuted:  "DGII accepted another document under this e-NCF: this one is not the supplier's. Do not approve or pay it.",
	}
	approvalStateKeys = map[string]string{
		sello.ApprovalPending:  "a received document's approval: pending",
		sello.ApprovalApproved: "a received document's approval: approved",
		sello.ApprovalRejected: "a received document's approval: rejected",
	}
	approvalSendKeys = map[string]string{
		sello.ApprovalSendPending: "an approval's sending: pending",
		sello.ApprovalSendSent:    "an approval's sending: sent",
		sello.ApprovalSendFailed:  "an approval's sending: failed",
	}
	// verdictKeys name a buyer's verdict on one of the company's own
	// documents.
	verdictKeys = map[string]string{
		sello.ApprovalApproved: "a buyer's verdict: approved",
		sello.ApprovalRejected: "a buyer's verdict: rejected",
	}
)

func init() {
	flashKeys["inbound-approved"] = "Approved. Sello is sending the approval to the supplier and to DGII; this page shows how it goes."
	flashKeys["inbound-rejected"] = "Rejected. Sello is sending the rejection to the supplier and to DGII; this page shows how it goes."
	auditActionKeys["inbound.approved"] = "Received document approved"
	auditActionKeys["inbound.rejected"] = "Received document rejected"
	auditActions = append(auditActions, actionOption{"inbound.", "Received documents"})
}

// receivedFilter is the list's filter as the person typed it (the query's
// emisor, encf, dgii, aprobacion, desde, hasta).
type receivedFilter struct {
	Issuer, ENCF, DGII, Approval, From, To string
}

// receivedView is a page of the list.
type receivedView struct {
	Env    sello.Environment
	Docs   []*sello.InboundDocument
	Filter receivedFilter
	// Errors say what is wrong with the filter (nothing is listed then).
	Errors []string
	// Cursor is this page's (?cursor=); Next the next page's, "" on the
	// last.
	Cursor, Next string
}

// query is the page's query, the filter kept, with changes (a value ""
// drops the key).
func (rv receivedView) query(changes ...string) string {
	q := url.Values{}
	for _, kv := range [][2]string{
		{"emisor", rv.Filter.Issuer}, {"encf", rv.Filter.ENCF}, {"dgii", rv.Filter.DGII},
		{"aprobacion", rv.Filter.Approval}, {"desde", rv.Filter.From}, {"hasta", rv.Filter.To},
	} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	for i := 0; i+1 < len(changes); i += 2 {
		if changes[i+1] == "" {
			q.Del(changes[i])
		} else {
			q.Set(changes[i], changes[i+1])
		}
	}
	if len(q) == 0 {
		return receivedPath(rv.Env)
	}
	return receivedPath(rv.Env) + "?" + q.Encode()
}

// parseReceivedFilter reads the list's query into the store's filter,
// with what is wrong with it in the reader's language.
func parseReceivedFilter(v *visit, q url.Values) (receivedFilter, sello.InboundFilter, []string) {
	rf := receivedFilter{
		Issuer: strings.TrimSpace(q.Get("emisor")), ENCF: strings.ToUpper(strings.TrimSpace(q.Get("encf"))),
		DGII: q.Get("dgii"), Approval: q.Get("aprobacion"),
		From: strings.TrimSpace(q.Get("desde")), To: strings.TrimSpace(q.Get("hasta")),
	}
	f := sello.InboundFilter{IssuerRNC: rf.Issuer, ENCF: rf.ENCF, Cursor: q.Get("cursor"), Limit: receivedPageSize}
	var problems []string
	bad := func(err error) { problems = append(problems, errorMessage(v.Lang, err)) }
	if rf.Issuer != "" {
		if err := sello.ValidateRNC(rf.Issuer); err != nil {
			bad(err)
		}
	}
	if rf.ENCF != "" {
		if _, err := sello.ParseENCF(rf.ENCF); err != nil {
			bad(err)
		}
	}
	if rf.DGII != "" {
		s, err := sello.ParseDGIIState(rf.DGII)
		if err != nil {
			bad(err)
		}
		f.DGII = s
	}
	if rf.Approval != "" {
		s, err := sello.ParseApprovalState(rf.Approval)
		if err != nil {
			bad(err)
		}
		f.Approval = s
	}
	// The days are the Dominican Republic's: from the first day's start to
	// the last day's end.
	if rf.From != "" {
		if d, err := sello.ParseDate(rf.From); err != nil {
			bad(err)
		} else {
			t := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, sello.DRZone)
			f.ReceivedFrom = &t
		}
	}
	if rf.To != "" {
		if d, err := sello.ParseDate(rf.To); err != nil {
			bad(err)
		} else {
			t := time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, sello.DRZone)
			f.ReceivedTo = &t
		}
	}
	return rf, f, problems
}

// handleReceived lists the company's received documents in the
// environment, newest received first, a page at a time, as filtered.
func (s *Server) handleReceived(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	q := r.URL.Query()
	view := receivedView{Env: env, Cursor: q.Get("cursor")}
	var f sello.InboundFilter
	view.Filter, f, view.Errors = parseReceivedFilter(v, q)
	status := http.StatusOK
	if len(view.Errors) > 0 {
		status = http.StatusBadRequest
	} else if view.Docs, view.Next, err = s.Store.ListInboundDocuments(r.Context(), v.Tenant.ID, env, f); sello.ErrorCodeOf(err) == sello.CodeInvalidRequest {
		return pageError(sello.CodeInvalidRequest, v.T("This page of the list does not exist. Start again from the first page."))
	} else if err != nil {
		return err
	}
	s.render(w, r, status, receivedPage(s.layout(r, v, v.T("Received documents")), view))
	return nil
}

// findReceived is the company's received document of the path's {id} in
// the path's environment. Another company's, or one of another
// environment, is NOT_FOUND.
func (s *Server) findReceived(ctx context.Context, r *http.Request, v *visit) (sello.Environment, *sello.InboundDocument, error) {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return "", nil, err
	}
	d, err := s.Store.FindInboundDocument(ctx, v.Tenant.ID, env, r.PathValue("id"))
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return "", nil, pageError(sello.CodeNotFound, v.T("This company has no such received document in %s.", string(env)))
	}
	return env, d, err
}

// receivedDocView is one received document's page.
type receivedDocView struct {
	Env sello.Environment
	Doc *sello.InboundDocument
	// Approval is the company's approval or rejection, with how its
	// sending goes; nil before one is asked for.
	Approval *sello.InboundApproval
	// CanDecide shows the forms: the role approves, and the document
	// waits for a verdict of a type that takes one. The handlers check
	// again, and the store refuses what the rules refuse.
	CanDecide bool
	// Motivo is the rejection's reason as typed, shown again with an
	// error.
	Motivo string
	// Error is why the last approval or rejection was refused, Details
	// what was wrong with it.
	Error   string
	Details []string
}

// handleReceivedDoc shows one received document.
func (s *Server) handleReceivedDoc(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	env, d, err := s.findReceived(r.Context(), r, v)
	if err != nil {
		return err
	}
	return s.renderReceivedDoc(w, r, v, http.StatusOK, receivedDocView{Env: env, Doc: d})
}

func (s *Server) renderReceivedDoc(w http.ResponseWriter, r *http.Request, v *visit, status int, view receivedDocView) error {
	a, err := s.Store.FindInboundApproval(r.Context(), v.Tenant.ID, view.Env, view.Doc.ID)
	if err == nil {
		view.Approval = a
	} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	view.CanDecide = canApprove(v) && view.Approval == nil && view.Doc.Type.ApprovalApplies() &&
		(view.Doc.Approval == sello.ApprovalPending || view.Doc.Approval == "")
	s.render(w, r, status, receivedDocPage(s.layout(r, v, v.T("Received document %s", view.Doc.ENCF)), view))
	return nil
}

// handleReceivedDecision approves (estado aprobado) or rejects (rechazado,
// with the form's motivo) the path's document: the store's
// ApproveInboundDocument, as the API's POST
// /{env}/aprobaciones-comerciales. A refusal shows the document again
// with why, in the reader's language: 400 for a malformed request (a
// rejection without a motivo), 422 for a document DGII has not accepted or
// of a type that takes no approval, 409 once it was decided.
func (s *Server) handleReceivedDecision(estado string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, v *visit) error {
		if err := requireRole(v, approvers...); err != nil {
			return err
		}
		ctx := r.Context()
		env, d, err := s.findReceived(ctx, r, v)
		if err != nil {
			return err
		}
		req := sello.ApprovalRequest{InboundDocumentID: d.ID, Estado: estado}
		if estado == sello.EstadoRechazado {
			req.Motivo = strings.TrimSpace(r.PostFormValue("motivo"))
		}
		a, err := s.Store.ApproveInboundDocument(ctx, v.Tenant.ID, env, req)
		if err != nil {
			status := 0
			switch sello.ErrorCodeOf(err) {
			case sello.CodeInvalidRequest:
				status = http.StatusBadRequest
			case sello.CodeValidationFailed:
				status = http.StatusUnprocessableEntity
			case sello.CodeConflict:
				status = http.StatusConflict
			default:
				return err
			}
			view := receivedDocView{Env: env, Doc: d, Motivo: req.Motivo, Error: errorMessage(v.Lang, err)}
			var e *sello.Error
			if sello.ErrorCodeOf(err) == sello.CodeInvalidRequest && errors.As(err, &e) {
				for _, dt := range e.LocalizedDetails(v.Lang) {
					view.Details = append(view.Details, dt.Message)
				}
			}
			// The document as it is now (a decision made meanwhile).
			if now, err := s.Store.FindInboundDocument(ctx, v.Tenant.ID, env, d.ID); err == nil {
				view.Doc = now
			}
			return s.renderReceivedDoc(w, r, v, status, view)
		}
		action, done := "inbound.approved", "inbound-approved"
		if a.State == sello.ApprovalRejected {
			action, done = "inbound.rejected", "inbound-rejected"
		}
		after := map[string]any{
			"approval": a.State, "approvalId": a.ID, "environment": env,
			"encf": d.ENCF, "issuerRnc": d.IssuerRNC, "total": d.Total,
		}
		if a.Reason != "" {
			after["motivo"] = a.Reason
		}
		if err := s.audit(ctx, v, action, d.ID, jsonOf(map[string]any{"approval": recvOrPending(d.Approval)}), jsonOf(after)); err != nil {
			return err
		}
		s.redirect(w, r, receivedDocPath(env, d.ID)+"?done="+done)
		return nil
	}
}

// recvOrPending is an approval state, pending for none.
func recvOrPending(state string) string {
	if state == "" {
		return sello.ApprovalPending
	}
	return state
}

// handleReceivedXML sends the e-CF as the supplier posted it, byte for
// byte (the API's GET /{env}/documentos-recibidos/{id}/xml).
func (s *Server) handleReceivedXML(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	_, d, err := s.findReceived(r.Context(), r, v)
	if err != nil {
		return err
	}
	writeFile(w, "application/xml", d.IssuerRNC+d.ENCF+".xml", d.XML)
	return nil
}

// handleReceivedPDF sends the received e-CF's printed representation
// (pdf.RenderReceived, as the API's GET
// /{env}/documentos-recibidos/{id}/pdf).
func (s *Server) handleReceivedPDF(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	env, d, err := s.findReceived(r.Context(), r, v)
	if err != nil {
		return err
	}
	out, err := pdf.RenderReceived(env, d.XML)
	if err != nil {
		return err
	}
	writeFile(w, "application/pdf", d.IssuerRNC+d.ENCF+".pdf", out)
	return nil
}

// The disputed approvals of the company's own documents.

// maxDisputeEvents bounds the disputes' read of the event log: disputes
// are rare, and a page of them is enough to act on.
const maxDisputeEvents = 1000

// recvDispute is one of the company's documents whose buyer's approval is
// disputed: the document as it is now, with every verdict and signer, and
// when the last conflicting verdict came.
type recvDispute struct {
	Doc *sello.Document
	At  time.Time
}

// disputesView is the disputes page.
type disputesView struct {
	Env      sello.Environment
	Disputes []recvDispute
	// Since is how far back the event log reaches (its retention).
	Since time.Time
}

// handleDisputes lists the company's own documents whose commercial
// approval is disputed (two holders' different verdicts,
// ecf.commercial_approval.disputed), newest dispute first, each with
// every verdict and its signer. They are found through the event log's
// index on the event type, so they are the disputes of the log's
// retention (sello.EventRetention, 30 days); each document's page shows
// its verdicts whenever they came.
func (s *Server) handleDisputes(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	ds, err := s.recvDisputes(r.Context(), v.Tenant.ID, env)
	if err != nil {
		return err
	}
	view := disputesView{Env: env, Disputes: ds, Since: s.now().Add(-sello.EventRetention)}
	s.render(w, r, http.StatusOK, disputesPage(s.layout(r, v, v.T("Disputed approvals")), view))
	return nil
}

// recvDisputes reads the tenant's ecf.commercial_approval.disputed events in
// env (at most maxDisputeEvents) and the documents they name, newest
// dispute first; a document whose approval is no longer disputed is left
// out.
func (s *Server) recvDisputes(ctx context.Context, tenantID string, env sello.Environment) ([]recvDispute, error) {
	last := map[string]time.Time{}
	var after sello.EventPosition
	for read := 0; read < maxDisputeEvents; {
		evs, err := s.Store.ListEvents(ctx, tenantID, env, sello.EventFilter{After: after, Type: sello.EventECFCommercialApprovalDisputed, Limit: sello.MaxPageSize})
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			if ev.Document != nil && ev.CreatedAt.After(last[ev.Document.ENCF]) {
				last[ev.Document.ENCF] = ev.CreatedAt
			}
		}
		read += len(evs)
		if len(evs) < sello.MaxPageSize {
			break
		}
		after = evs[len(evs)-1].Pos
	}
	if len(last) == 0 {
		return nil, nil
	}
	encfs := make([]string, 0, len(last))
	for e := range last {
		encfs = append(encfs, e)
	}
	docs, err := s.Store.FindDocumentsByENCF(ctx, tenantID, env, encfs)
	if err != nil {
		return nil, err
	}
	var out []recvDispute
	for _, d := range docs {
		if d.CommercialApproval != nil && d.CommercialApproval.Status == sello.ApprovalDisputed {
			out = append(out, recvDispute{Doc: d, At: last[d.ENCF]})
		}
	}
	slices.SortFunc(out, func(a, b recvDispute) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		return strings.Compare(a.Doc.ENCF, b.Doc.ENCF)
	})
	return out, nil
}

// The pages' helpers.

// recvMoney is an amount as written in an e-CF, in pesos the reader's way;
// as it is when it is not a number.
func recvMoney(l *layoutData, amount string) string {
	d, err := decimal.NewFromString(amount)
	if err != nil {
		return amount
	}
	return i18n.FormatMoney(l.V.Lang, d)
}

// recvDate is a date the reader's way.
func recvDate(l *layoutData, d sello.Date) string {
	if d == (sello.Date{}) {
		return "—"
	}
	return i18n.FormatDate(l.V.Lang, time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC))
}

// recvTypeLabel is a document type's code and DGII's name of it.
func recvTypeLabel(t sello.DocumentType) string {
	if name := pdf.TypeName(t); name != "" {
		return string(t) + " · " + name
	}
	return string(t)
}

// recvSignerName is the common name (CN) of a signer's subject, the whole
// subject when it names none; "" for no signer.
func recvSignerName(s *sello.Signer) string {
	if s == nil {
		return ""
	}
	for _, part := range strings.Split(s.Subject, ",") {
		if k, val, ok := strings.Cut(strings.TrimSpace(part), "="); ok && strings.EqualFold(k, "CN") {
			return val
		}
	}
	return s.Subject
}

// recvDGIIState is a received document's confirmation state, pending for a
// document received before Sello asked DGII ("" then: see dgiiKnown).
func recvDGIIState(d *sello.InboundDocument) string {
	if d.DGII == nil {
		return ""
	}
	return d.DGII.Status
}

// recvApprovalPoll makes htmx refresh an approval's progress every 10
// seconds while a leg is pending (a reload does the same without
// JavaScript).
func recvApprovalPoll(view receivedDocView) templ.Attributes {
	if view.Approval == nil || view.Approval.Status != sello.ApprovalSendPending {
		return templ.Attributes{}
	}
	return templ.Attributes{
		"hx-get":     receivedDocPath(view.Env, view.Doc.ID),
		"hx-trigger": "every 10s",
		"hx-select":  "#approval-progress",
		"hx-swap":    "outerHTML",
	}
}

// recvDGIIAnswer is DGII's answer to an approval's DGII leg, as a line: its
// codigo and estado, then its messages.
func recvDGIIAnswer(a *sello.DGIIResult) []string {
	if a == nil {
		return nil
	}
	var head []string
	if a.Codigo != nil {
		head = append(head, strconv.Itoa(*a.Codigo))
	}
	if a.Estado != "" {
		head = append(head, a.Estado)
	}
	var out []string
	if len(head) > 0 {
		out = append(out, strings.Join(head, " · "))
	}
	for _, m := range a.Mensajes {
		if m.Codigo != nil {
			out = append(out, strconv.Itoa(*m.Codigo)+": "+m.Valor)
		} else {
			out = append(out, m.Valor)
		}
	}
	return out
}
