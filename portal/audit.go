package portal

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// The audit log's page (Auditoría), for owners only: the company's
// entries, newest first, filtered by who, what and since when, a page at
// a time (a cursor on the entries' seq); each entry's before and after;
// and the chain's verification (sello.VerifyAuditChain), as sello audit
// verify does it.

// The audit log's paths.
const (
	auditPath       = "/portal/auditoria"
	auditVerifyPath = "/portal/auditoria/verificar"
)

// auditPageSize is how many entries a page shows.
const auditPageSize = 50

// auditFilterForm is the filter as the query gives it.
type auditFilterForm struct {
	Actor, Action, Since string
}

// auditView is what the audit log's page shows.
type auditView struct {
	Filter auditFilterForm
	// Actors are the filter's choices: the members, and the filter's own
	// actor when they are no longer one.
	Actors []actorOption
	// Actions are the filter's choices of what changed.
	Actions []actionOption
	Entries []*sello.AuditEntry
	// Older is the next page's URL, "" on the last; Newest the first
	// page's, "" on it.
	Older, Newest string
	// Chain is the verification's result, on the verification's page.
	Chain *chainResult
	Error string
}

type actorOption struct {
	ID, Label string
}

type actionOption struct {
	Prefix, Key string
}

// chainResult is the chain's verification.
type chainResult struct {
	Entries int
	// HeadSeq and HeadHash are the last entry's (keep them elsewhere to
	// tell that no entry was removed from the end).
	HeadSeq  int64
	HeadHash string
	// BrokenSeq is the first broken entry's seq; 0 for a whole chain.
	BrokenSeq int64
}

// auditActions are the filter's choices: every action starting with the
// prefix (catalogue key of its label).
var auditActions = []actionOption{
	{"api_key.", "API keys"},
	{"webhook_", "Webhooks"},
	{"sequence.", "Sequences"},
	{"void.", "Voids"},
	{"certificate.", "Certificates"},
	{"certification_run.", "Certification"},
	{"user.", "Users"},
	{"tenant.", "Company settings"},
}

// auditActionKeys are the catalogue keys of the actions' labels; an
// action without one shows as it is.
var auditActionKeys = map[string]string{
	"api_key.created":                  "API key created",
	"api_key.rotated":                  "API key rotated (a new key replaces it)",
	"api_key.revoked":                  "API key revoked",
	"user.invited":                     "User invited",
	"user.joined":                      "User joined",
	"user.role_changed":                "Role changed",
	"user.removed":                     "User removed",
	"user.password_changed":            "Password changed",
	"user.password_reset":              "Password reset",
	"user.second_factor_enabled":       "Second factor turned on",
	"user.second_factor_removed":       "Second factor turned off",
	"user.signed_out_everywhere":       "Signed out on every device",
	"tenant.second_factor_required":    "Second factor for everyone changed",
	"webhook_endpoint.created":         "Webhook endpoint added",
	"webhook_endpoint.paused":          "Webhook endpoint paused",
	"webhook_endpoint.resumed":         "Webhook endpoint resumed",
	"webhook_endpoint.secret_rotated":  "Webhook secret rotated",
	"webhook_endpoint.tested":          "Webhook test sent",
	"webhook_endpoint.deleted":         "Webhook endpoint deleted",
	"webhook_delivery.replayed":        "Webhook delivery replayed",
	"webhook_delivery.failed_replayed": "Failed webhook deliveries replayed",
	"sequence.created":                 "e-NCF range registered",
	"void.created":                     "e-NCF numbers voided",
	"certificate.added":                "Signing certificate added",
	"certification_run.created":        "Certification run started",
}

// audit records a change the visitor made in their company.
func (s *Server) audit(ctx context.Context, v *visit, action, target string, before, after []byte) error {
	return s.Store.AppendAudit(ctx, &sello.AuditEntry{
		TenantID: v.Tenant.ID, ActorID: v.User.ID, ActorEmail: v.User.Email, Action: action, Target: target,
		Address: v.Addr.String(), Before: before, After: after,
	})
}

// handleAudit shows the company's audit log, for owners.
func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	view, err := s.auditView(r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, auditPage(s.layout(r, v, v.T("Audit log")), view))
	return nil
}

// handleAuditVerify checks the company's whole chain and shows the
// result above the log's first page.
func (s *Server) handleAuditVerify(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, sello.RoleOwner); err != nil {
		return err
	}
	ctx := r.Context()
	chain, err := s.Store.AuditChain(ctx, v.Tenant.ID)
	if err != nil {
		return err
	}
	res := &chainResult{Entries: len(chain)}
	if len(chain) > 0 {
		head := chain[len(chain)-1]
		res.HeadSeq, res.HeadHash = head.Seq, hex.EncodeToString(head.Hash)
	}
	var broken *sello.AuditChainError
	if err := sello.VerifyAuditChain(chain); errors.As(err, &broken) {
		res.BrokenSeq = broken.Seq
	} else if err != nil {
		return err
	}
	view, err := s.auditView(r, v)
	if err != nil {
		return err
	}
	view.Chain = res
	s.render(w, r, http.StatusOK, auditPage(s.layout(r, v, v.T("Audit log")), view))
	return nil
}

// auditView reads the page of the log the query asks for.
func (s *Server) auditView(r *http.Request, v *visit) (auditView, error) {
	ctx := r.Context()
	q := r.URL.Query()
	view := auditView{
		Filter:  auditFilterForm{Actor: q.Get("actor"), Action: strings.TrimSpace(q.Get("action")), Since: strings.TrimSpace(q.Get("since"))},
		Actions: auditActions,
	}
	f := sello.AuditFilter{ActorID: view.Filter.Actor, Action: view.Filter.Action, Limit: auditPageSize + 1}
	if view.Filter.Action != "" && !slices.ContainsFunc(auditActions, func(a actionOption) bool { return a.Prefix == view.Filter.Action }) {
		view.Actions = append(append([]actionOption(nil), auditActions...), actionOption{Prefix: view.Filter.Action})
	}
	if view.Filter.Since != "" {
		d, err := sello.ParseDate(view.Filter.Since)
		if err != nil {
			view.Error = errorMessage(v.Lang, err)
		} else {
			f.Since = time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, sello.DRZone)
		}
	}
	if b := q.Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 1 {
			return view, pageError(sello.CodeInvalidRequest, v.T("This page of the audit log does not exist: go back to the newest entries."))
		}
		f.Before = n
	}
	ms, err := s.Store.FindMemberships(ctx, v.Tenant.ID)
	if err != nil {
		return view, err
	}
	for _, m := range ms {
		view.Actors = append(view.Actors, actorOption{ID: m.UserID, Label: m.Email})
	}
	if view.Filter.Actor != "" && !slices.ContainsFunc(view.Actors, func(a actorOption) bool { return a.ID == view.Filter.Actor }) {
		view.Actors = append(view.Actors, actorOption{ID: view.Filter.Actor, Label: view.Filter.Actor})
	}
	entries, err := s.Store.FindAudit(ctx, v.Tenant.ID, f)
	if err != nil {
		return view, err
	}
	if len(entries) > auditPageSize {
		entries = entries[:auditPageSize]
		view.Older = auditPageURL(view.Filter, entries[len(entries)-1].Seq)
	}
	if f.Before != 0 {
		view.Newest = auditPageURL(view.Filter, 0)
	}
	view.Entries = entries
	return view, nil
}

// auditPageURL is the log's page of entries before seq (0: the newest)
// under filter f.
func auditPageURL(f auditFilterForm, before int64) string {
	q := url.Values{}
	for k, val := range map[string]string{"actor": f.Actor, "action": f.Action, "since": f.Since} {
		if val != "" {
			q.Set(k, val)
		}
	}
	if before > 0 {
		q.Set("before", strconv.FormatInt(before, 10))
	}
	if len(q) == 0 {
		return auditPath
	}
	return auditPath + "?" + q.Encode()
}

// actionLabel is an action's label in the page's language, or the action
// itself.
func actionLabel(l *layoutData, action string) string {
	if key, ok := auditActionKeys[action]; ok {
		return l.T(key)
	}
	return action
}

// actorLabel is who made a change: their email, or the operator (the CLI).
func actorLabel(l *layoutData, e *sello.AuditEntry) string {
	if e.ActorID == "" {
		return l.T("the operator (command line)")
	}
	return e.ActorEmail
}

// prettyJSON indents a before or after for reading; as it is if it is not
// JSON.
func prettyJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

// actionOptionLabel is a filter choice's label: its catalogue label, or
// the prefix as it is.
func actionOptionLabel(l *layoutData, a actionOption) string {
	if a.Key == "" {
		return a.Prefix
	}
	return l.T(a.Key)
}
