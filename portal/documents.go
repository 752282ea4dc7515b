package portal

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
	"github.com/sello-do/sello/pdf"
)

// The Documentos pages: the documents the company issued in one
// environment, filtered and paged as GET /{env}/documentos-ecf lists them
// (the same store query, sello.DocumentFilter); each document's story (its
// states and events, DGII's answer, the delivery to the buyer and the
// buyer's commercial approval, its webhook deliveries); its XML and PDF as
// the API serves them; and the filtered list as CSV (documents_csv.go).
// Every member reads them: nothing here changes anything, so nothing is
// audited.

// The pages' paths, under the environment's /portal/{env}/documentos.
func documentsPath(env sello.Environment) string { return "/portal/" + string(env) + "/documentos" }
func documentPath(env sello.Environment, encf string) string {
	return documentsPath(env) + "/" + url.PathEscape(encf)
}
func documentFilePath(env sello.Environment, encf, kind string) string {
	return documentPath(env, encf) + "/" + kind
}
func documentsExportPath(env sello.Environment) string { return documentsPath(env) + "/exportar" }

// documentsPageSize is how many documents a page of the list shows: the
// API's default page.
const documentsPageSize = sello.DefaultPageSize

// The list's query parameters (the portal's, in Spanish; the API's are
// status, type, buyer, encf, from, to).
const (
	paramStatus = "estado"
	paramType   = "tipo"
	paramBuyer  = "comprador"
	paramENCF   = "encf"
	paramFrom   = "desde"
	paramTo     = "hasta"
	paramEnv    = "ambiente"
	paramCursor = "cursor"
)

// dateInput is the form of an <input type="date">'s value.
const dateInput = "2006-01-02"

// documentsQuery is the list's filter as the person typed it.
type documentsQuery struct {
	Status, Type, Buyer, ENCF, From, To string
}

// values is q as the list's query (empty fields left out), for links.
func (q documentsQuery) values() url.Values {
	v := url.Values{}
	for _, p := range [][2]string{
		{paramStatus, q.Status}, {paramType, q.Type}, {paramBuyer, q.Buyer},
		{paramENCF, q.ENCF}, {paramFrom, q.From}, {paramTo, q.To},
	} {
		if p[1] != "" {
			v.Set(p[0], p[1])
		}
	}
	return v
}

// Filtered reports whether q narrows the list.
func (q documentsQuery) Filtered() bool { return len(q.values()) > 0 }

// readDocumentsQuery reads the list's filter from the query into the
// store's filter, with the domain's parsers (those of the API's list);
// problems are the messages of the values that are not valid. A buyer's
// RNC may be typed with dashes or spaces, an e-NCF in lower case.
func readDocumentsQuery(v *visit, q url.Values) (documentsQuery, sello.DocumentFilter, []string) {
	dq := documentsQuery{
		Status: strings.TrimSpace(q.Get(paramStatus)),
		Type:   strings.TrimSpace(q.Get(paramType)),
		Buyer:  strings.NewReplacer("-", "", " ", "").Replace(q.Get(paramBuyer)),
		ENCF:   strings.ToUpper(strings.TrimSpace(q.Get(paramENCF))),
		From:   strings.TrimSpace(q.Get(paramFrom)),
		To:     strings.TrimSpace(q.Get(paramTo)),
	}
	f := sello.DocumentFilter{Cursor: q.Get(paramCursor), Limit: documentsPageSize}
	var problems []string
	if dq.Status != "" {
		st, err := sello.ParseStatus(dq.Status)
		if err != nil {
			problems = append(problems, v.T("Choose a state from the list."))
		}
		f.Status = st
	}
	if dq.Type != "" {
		t, err := sello.ParseDocumentType(dq.Type)
		if err != nil {
			problems = append(problems, v.T("Choose a type from the list."))
		} else {
			dq.Type = t.Code()
		}
		f.Type = t
	}
	if dq.Buyer != "" {
		if sello.ValidateRNC(dq.Buyer) != nil {
			problems = append(problems, v.T("The buyer's RNC or cédula has 9 or 11 digits."))
		}
		f.BuyerRNC = dq.Buyer
	}
	if dq.ENCF != "" {
		if _, err := sello.ParseENCF(dq.ENCF); err != nil {
			problems = append(problems, v.T("An e-NCF is E, the type and 10 digits, like E310000000001."))
		}
		f.ENCF = dq.ENCF
	}
	// The days are the Dominican Republic's: from the first day's start to
	// the last day's end (the next day's start, exclusive, as the API's
	// to).
	day := func(s string) (time.Time, bool) {
		if s == "" {
			return time.Time{}, true
		}
		t, err := time.ParseInLocation(dateInput, s, sello.DRZone)
		if err != nil {
			problems = append(problems, v.T("Give each date as a day, like 2026-11-27."))
			return time.Time{}, false
		}
		return t, true
	}
	from, okFrom := day(dq.From)
	to, okTo := day(dq.To)
	if dq.From != "" && okFrom {
		f.CreatedFrom = &from
	}
	if dq.To != "" && okTo {
		end := to.AddDate(0, 0, 1)
		f.CreatedTo = &end
	}
	if f.CreatedFrom != nil && f.CreatedTo != nil && !f.CreatedFrom.Before(*f.CreatedTo) {
		problems = append(problems, v.T("The first day comes after the last."))
	}
	return dq, f, problems
}

// documentsView is a page of the list.
type documentsView struct {
	Env       sello.Environment
	Query     documentsQuery
	Problems  []string
	Documents []*sello.Document
	// Cursor is this page's (?cursor=); Next the next page's, "" on the
	// last.
	Cursor, Next string
}

// link is the list's path with the filter and a cursor ("" for the first
// page).
func (d documentsView) link(cursor string) string {
	q := d.Query.values()
	if cursor != "" {
		q.Set(paramCursor, cursor)
	}
	if len(q) == 0 {
		return documentsPath(d.Env)
	}
	return documentsPath(d.Env) + "?" + q.Encode()
}

// ExportLink is the CSV export of the filtered list.
func (d documentsView) ExportLink() string {
	q := d.Query.values()
	if len(q) == 0 {
		return documentsExportPath(d.Env)
	}
	return documentsExportPath(d.Env) + "?" + q.Encode()
}

// handleDocuments lists the company's documents in the environment, newest
// first, a page at a time, filtered. Choosing another environment in the
// form (?ambiente=) goes to that environment's list with the same filter.
func (s *Server) handleDocuments(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	view := documentsView{Env: env, Cursor: q.Get(paramCursor)}
	var f sello.DocumentFilter
	view.Query, f, view.Problems = readDocumentsQuery(v, q)
	if other := q.Get(paramEnv); other != "" && other != string(env) {
		if e, err := sello.ParseEnvironment(other); err == nil {
			s.redirect(w, r, documentsView{Env: e, Query: view.Query}.link(""))
			return nil
		}
	}
	title := v.T("Documents")
	if len(view.Problems) > 0 {
		s.render(w, r, http.StatusBadRequest, documentsPage(s.layout(r, v, title), view))
		return nil
	}
	view.Documents, view.Next, err = s.Store.ListDocuments(r.Context(), v.Tenant.ID, env, f)
	if sello.ErrorCodeOf(err) == sello.CodeInvalidRequest {
		return pageError(sello.CodeInvalidRequest, v.T("This page of the list does not exist. Start again from the first page."))
	} else if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, documentsPage(s.layout(r, v, title), view))
	return nil
}

// findDocument is the company's document of the path's {encf} in the
// path's environment. Another company's, one of another environment, or a
// malformed e-NCF is NOT_FOUND.
func (s *Server) findDocument(r *http.Request, v *visit) (sello.Environment, *sello.Document, error) {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return "", nil, err
	}
	encf := r.PathValue("encf")
	if _, err := sello.ParseENCF(encf); err != nil {
		return "", nil, sello.DocumentNotFound(encf, env)
	}
	d, err := s.Store.FindDocument(r.Context(), v.Tenant.ID, env, encf)
	return env, d, err
}

// documentView is one document's page.
type documentView struct {
	Env      sello.Environment
	Document *sello.Document
	// Resource is the document as the API shows it: its delivery and
	// commercial approval as the API promises them (Document.Resource).
	Resource sello.DocumentResource
	Timeline []timelineEntry
	// Verdicts are the buyer's commercial verdicts, first first (two or
	// more when disputed), when the API shows an approval.
	Verdicts   []sello.ApprovalVerdict
	Deliveries []*sello.WebhookDelivery
	// EventsPruned: the document is older than events are kept, so its
	// earliest events are gone (its states are not).
	EventsPruned bool
}

// timelineEntry is one step of a document's story: a row of its status
// history, with the event the same change wrote (nil when it wrote none,
// or the event is no longer kept); or an event with no history row (a
// commercial approval received).
type timelineEntry struct {
	At time.Time
	// Status is the document's status after the step.
	Status sello.Status
	// Reason is the history row's ("" for none).
	Reason string
	Event  *sello.Event
}

// timeline merges a document's status history and its events, oldest
// first: a change writes its history row and its event at the same
// instant, with the status it leaves, so the two make one step.
func timeline(history []sello.StatusChange, events []*sello.Event) []timelineEntry {
	out := make([]timelineEntry, len(history))
	for i, h := range history {
		out[i] = timelineEntry{At: h.At, Status: h.Status, Reason: h.Reason}
	}
	for _, ev := range events {
		var status sello.Status
		if ev.Document != nil {
			status = ev.Document.Status
		}
		i := slices.IndexFunc(out, func(e timelineEntry) bool {
			return e.Event == nil && e.At.Equal(ev.CreatedAt) && e.Status == status
		})
		if i >= 0 {
			out[i].Event = ev
			continue
		}
		out = append(out, timelineEntry{At: ev.CreatedAt, Status: status, Event: ev})
	}
	slices.SortStableFunc(out, func(a, b timelineEntry) int { return a.At.Compare(b.At) })
	return out
}

// handleDocument shows one document's story.
func (s *Server) handleDocument(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	ctx := r.Context()
	env, d, err := s.findDocument(r, v)
	if err != nil {
		return err
	}
	history, err := s.Store.FindDocumentHistory(ctx, v.Tenant.ID, env, d.ID)
	if err != nil {
		return err
	}
	events, err := s.Store.FindDocumentEvents(ctx, v.Tenant.ID, env, d.ID)
	if err != nil {
		return err
	}
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = ev.ID
	}
	deliveries, err := s.Store.FindEventWebhookDeliveries(ctx, v.Tenant.ID, ids)
	if err != nil {
		return err
	}
	view := documentView{
		Env: env, Document: d, Resource: d.Resource(), Timeline: timeline(history, events), Deliveries: deliveries,
		EventsPruned: d.CreatedAt.Before(s.now().Add(-sello.EventRetention)),
	}
	if view.Resource.CommercialApproval != nil {
		view.Verdicts = d.CommercialApproval.AllVerdicts()
	}
	s.render(w, r, http.StatusOK, documentPage(s.layout(r, v, d.ENCF), view))
	return nil
}

// handleDocumentXML sends the signed XML exactly as sent to DGII, as GET
// /{env}/documentos-ecf/{encf}/xml does.
func (s *Server) handleDocumentXML(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	env, d, err := s.findDocument(r, v)
	if err != nil {
		return err
	}
	xml, err := s.Store.FindDocumentXML(r.Context(), v.Tenant.ID, env, d.ENCF)
	if err != nil {
		return err
	}
	writeFile(w, "application/xml", d.ENCF+".xml", xml)
	return nil
}

// handleDocumentPDF sends the printed representation, as GET
// /{env}/documentos-ecf/{encf}/pdf does (pdf.OfDocument).
func (s *Server) handleDocumentPDF(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.Roles...); err != nil {
		return err
	}
	env, d, err := s.findDocument(r, v)
	if err != nil {
		return err
	}
	out, err := pdf.OfDocument(r.Context(), s.Store, v.Tenant.ID, env, d.ENCF)
	if err != nil {
		return err
	}
	writeFile(w, "application/pdf", d.ENCF+".pdf", out)
	return nil
}

// writeFile sends a download.
func writeFile(w http.ResponseWriter, contentType, name string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// The catalogue keys of the values the pages show.
var (
	documentStatusKeys = map[sello.Status]string{
		sello.StatusQueuedForSigning:    "a document's state: queued for signing",
		sello.StatusSigned:              "a document's state: signed",
		sello.StatusSubmitted:           "a document's state: sent to DGII",
		sello.StatusAccepted:            "a document's state: accepted",
		sello.StatusAcceptedConditional: "a document's state: accepted with conditions",
		sello.StatusRejected:            "a document's state: rejected",
		sello.StatusFailed:              "a document's state: failed",
	}
	documentDeliveryKeys = map[string]string{
		sello.DeliveryNotApplicable: "a delivery's state: not applicable",
		sello.DeliveryNotSent:       "a delivery's state: not sent",
		sello.DeliveryPending:       "a delivery's state: under way",
		sello.DeliveryDelivered:     "a delivery's state: delivered",
		sello.DeliveryNotReceived:   "a delivery's state: not received",
		sello.DeliveryFailed:        "a delivery's state: failed",
		sello.DeliveryNotElectronic: "a delivery's state: the buyer is not electronic",
	}
	approvalStatusKeys = map[string]string{
		sello.ApprovalPending:  "an approval's state: pending",
		sello.ApprovalApproved: "an approval's state: approved",
		sello.ApprovalRejected: "an approval's state: rejected",
		sello.ApprovalDisputed: "an approval's state: disputed",
	}
	documentEventKeys = map[sello.EventType]string{
		sello.EventECFQueued:                     "Queued for signing",
		sello.EventECFSigned:                     "Signed",
		sello.EventECFSubmitted:                  "Sent to DGII",
		sello.EventECFAccepted:                   "Accepted by DGII",
		sello.EventECFAcceptedConditional:        "Accepted by DGII with conditions",
		sello.EventECFRejected:                   "Rejected by DGII",
		sello.EventECFFailed:                     "The document failed",
		sello.EventECFDelivered:                  "Delivered to the buyer",
		sello.EventECFDeliveryFailed:             "The delivery to the buyer failed",
		sello.EventECFCommercialApproval:         "The buyer's commercial approval received",
		sello.EventECFCommercialApprovalDisputed: "The buyer's commercial approval disputed",
	}
)

// statusLabel is a document's status as the pages name it.
func statusLabel(l *layoutData, st sello.Status) string {
	if key, ok := documentStatusKeys[st]; ok {
		return l.T(key)
	}
	return string(st)
}

// deliveryLabel is a delivery's status as the pages name it.
func deliveryLabel(l *layoutData, st string) string {
	if key, ok := documentDeliveryKeys[st]; ok {
		return l.T(key)
	}
	return st
}

// approvalLabel is a commercial approval's status as the pages name it.
func approvalLabel(l *layoutData, st string) string {
	if key, ok := approvalStatusKeys[st]; ok {
		return l.T(key)
	}
	return st
}

// stepTitle is a timeline entry's title: its event's, else the state it
// left.
func stepTitle(l *layoutData, e timelineEntry) string {
	if e.Event != nil {
		if key, ok := documentEventKeys[e.Event.Type]; ok {
			return l.T(key)
		}
		return string(e.Event.Type)
	}
	return l.T("State: %s", statusLabel(l, e.Status))
}

// amountText is an amount ("1180.00") as the pages show it: "RD$ 1,180.00".
func amountText(l *layoutData, amount string) string {
	d, err := decimal.NewFromString(amount)
	if err != nil {
		return amount
	}
	return i18n.FormatMoney(l.V.Lang, d)
}

// issueDate is a document's FechaEmision as the pages show dates.
func issueDate(l *layoutData, d sello.Date) string {
	if d.Year == 0 {
		return ""
	}
	return i18n.FormatDate(l.V.Lang, time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC))
}

// typeOption is a document type of the filter: its code and DGII's name.
func typeOption(t sello.DocumentType) string { return t.Code() + " · " + pdf.TypeName(t) }

// yesNo is a boolean as the pages say it.
func yesNo(l *layoutData, b bool) string {
	if b {
		return l.T("Yes")
	}
	return l.T("No")
}

// orDashPtr is *s, or a dash when nil or empty.
func orDashPtr(s *string) string {
	if s == nil {
		return orDash("")
	}
	return orDash(*s)
}

// dgiiMessage is one of DGII's messages: "code: text", or the text.
func dgiiMessage(m sello.DGIIMessage) string {
	if m.Codigo == nil {
		return m.Valor
	}
	return strconv.Itoa(*m.Codigo) + ": " + m.Valor
}

// itoa is n in decimal.
func itoa(n int) string { return strconv.Itoa(n) }

// dayOf is t's day in the Dominican Republic, as the pages show dates.
func dayOf(l *layoutData, t time.Time) string {
	return i18n.FormatDate(l.V.Lang, t.In(sello.DRZone))
}
