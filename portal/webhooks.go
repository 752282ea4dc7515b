package portal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/webhook"
)

// The Webhooks pages (spec §2.2, §4.5, §6.4.6): a company's endpoints in
// one environment, and the log of their deliveries. Everyone in the
// company reads them; owners, administrators and developers change them.
// Every change goes to the audit log; a secret is shown once, never logged
// or audited. The rules are the domain's, as the CLI (sello webhooks)
// uses them: the store's methods, sello.NewWebhookEndpoint,
// webhook.NormalizeEndpointURL, sello.ParseWebhookEventTypes,
// sello.WebhookDeliveryPage, sello.WaitFirstWebhookAttempt.

// webhookManagers are the roles that change webhooks; the others read.
var webhookManagers = []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleDeveloper}

// canManageWebhooks reports whether the visitor's role changes webhooks.
func canManageWebhooks(v *visit) bool { return slices.Contains(webhookManagers, v.Role) }

// The pages' paths, under the environment's /portal/{env}/webhooks.
func webhooksPath(env sello.Environment) string { return "/portal/" + string(env) + "/webhooks" }
func webhookNewPath(env sello.Environment) string {
	return webhooksPath(env) + "/nuevo"
}
func endpointPath(env sello.Environment, id string) string {
	return webhooksPath(env) + "/endpoints/" + url.PathEscape(id)
}
func endpointActionPath(env sello.Environment, id, action string) string {
	return endpointPath(env, id) + "/" + action
}
func deliveriesPath(env sello.Environment) string { return webhooksPath(env) + "/entregas" }
func deliveryPath(env sello.Environment, id string) string {
	return deliveriesPath(env) + "/" + url.PathEscape(id)
}
func deliveryReplayPath(env sello.Environment, id string) string {
	return deliveryPath(env, id) + "/reenviar"
}
func replayFailedPath(env sello.Environment) string {
	return deliveriesPath(env) + "/reenviar-fallidas"
}

// failedView is the deliveries page's query value of the failed view
// (?estado=fallidas).
const failedView = "fallidas"

// deliveriesPageSize is how many deliveries a page of the log shows.
const deliveriesPageSize = 50

// overlapChoices are the rotation's overlaps the page offers, in hours:
// how long the previous secrets keep signing beside the new one.
var overlapChoices = []int{0, 1, 24, 72, 168}

// defaultOverlapHours is the rotation's default overlap, the CLI's
// (sello.WebhookSecretOverlap).
var defaultOverlapHours = int(sello.WebhookSecretOverlap / time.Hour)

// webhookTestWait is how long sending a test waits for its first attempt
// before showing the delivery (which then refreshes itself until the
// answer comes).
const webhookTestWait = 5 * time.Second

// webhookPoll is how often that wait reads the delivery.
const webhookPoll = 50 * time.Millisecond

// The catalogue keys of the statuses the pages show.
var (
	endpointStatusKeys = map[sello.WebhookEndpointStatus]string{
		sello.WebhookEndpointActive:   "active",
		sello.WebhookEndpointPaused:   "paused",
		sello.WebhookEndpointDisabled: "disabled",
	}
	deliveryStatusKeys = map[sello.WebhookDeliveryStatus]string{
		sello.WebhookPending:   "pending",
		sello.WebhookHeld:      "held",
		sello.WebhookSucceeded: "delivered",
		sello.WebhookFailed:    "failed",
	}
	triggerKeys = map[sello.WebhookTrigger]string{
		sello.WebhookTriggerEvent:  "event",
		sello.WebhookTriggerReplay: "replay",
		sello.WebhookTriggerTest:   "test",
	}
	// webhookFlashKeys are the messages after an action (?done=).
	webhookFlashKeys = map[string]string{
		"paused":   "The endpoint is paused: its new deliveries wait until you resume it.",
		"deleted":  "The endpoint was deleted. Its deliveries stay in the log for 30 days.",
		"replayed": "Sent again as a new delivery: this one. The original stays as it was.",
		"held":     "The endpoint is paused: this delivery waits until you resume it.",
		"test":     "Test event sent.",
	}
)

// pageEnvOf is the path's environment; NOT_FOUND for another value.
func pageEnvOf(r *http.Request, v *visit) (sello.Environment, error) {
	env, err := sello.ParseEnvironment(r.PathValue("env"))
	if err != nil {
		return "", pageError(sello.CodeNotFound, v.T("There is no such page."))
	}
	return env, nil
}

// webhookFlash is the message of the action just done (?done=, with ?n=
// for counts), "" for none.
func webhookFlash(v *visit, q url.Values) string {
	n, _ := strconv.Atoi(q.Get("n"))
	switch q.Get("done") {
	case "resumed":
		switch n {
		case 0:
			return v.T("The endpoint is active again.")
		case 1:
			return v.T("The endpoint is active again; one held delivery is on its way.")
		}
		return v.T("The endpoint is active again; %d held deliveries are on their way.", n)
	case "replayed-failed":
		switch n {
		case 0:
			return v.T("No failed delivery since then was left to send again.")
		case 1:
			return v.T("One failed delivery is being sent again.")
		}
		return v.T("%d failed deliveries are being sent again.", n)
	}
	if key, ok := webhookFlashKeys[q.Get("done")]; ok {
		return v.T(key)
	}
	return ""
}

// webhookLayout is the layout of a Webhooks page, with its flash message.
func (s *Server) webhookLayout(r *http.Request, v *visit, title string) *layoutData {
	l := s.layout(r, v, title)
	if msg := webhookFlash(v, r.URL.Query()); msg != "" {
		l.Flash = msg
	}
	return l
}

// auditWebhook records a change to the company's webhooks: who, from
// where, what (action), on what (target), and its before and after (nil
// when the change has none). Secrets never go in.
func (s *Server) auditWebhook(ctx context.Context, v *visit, action, target string, before, after any) error {
	e := &sello.AuditEntry{
		TenantID: v.Tenant.ID, ActorID: v.User.ID, ActorEmail: v.User.Email,
		Action: action, Target: target, Address: v.Addr.String(),
	}
	if before != nil {
		e.Before = jsonOf(before)
	}
	if after != nil {
		e.After = jsonOf(after)
	}
	if err := s.Store.AppendAudit(ctx, e); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// endpointAudit is what the audit log keeps of an endpoint.
type endpointAudit struct {
	URL         string                      `json:"url"`
	Environment sello.Environment           `json:"environment"`
	Events      []sello.EventType           `json:"events"`
	Status      sello.WebhookEndpointStatus `json:"status"`
}

func auditOfEndpoint(e *sello.WebhookEndpoint) endpointAudit {
	events := e.Events
	if events == nil {
		events = []sello.EventType{}
	}
	return endpointAudit{URL: e.URL, Environment: e.Environment, Events: events, Status: e.Status}
}

// findEndpoint is the company's endpoint of the path's {id} in env.
// Another company's endpoint, one of another environment, or a deleted one
// is NOT_FOUND.
func (s *Server) findEndpoint(ctx context.Context, r *http.Request, v *visit) (sello.Environment, *sello.WebhookEndpoint, error) {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return "", nil, err
	}
	id := r.PathValue("id")
	e, err := s.Store.FindWebhookEndpoint(ctx, v.Tenant.ID, id)
	if err != nil {
		return "", nil, err
	}
	if e.Environment != env {
		return "", nil, sello.WebhookEndpointNotFound(id)
	}
	return env, e, nil
}

// findDelivery is the company's delivery of the path's {id} in env, with
// its attempts. Another company's, or one of another environment, is
// NOT_FOUND.
func (s *Server) findDelivery(ctx context.Context, r *http.Request, v *visit) (sello.Environment, *sello.WebhookDelivery, error) {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return "", nil, err
	}
	id := r.PathValue("id")
	d, err := s.Store.FindWebhookDelivery(ctx, v.Tenant.ID, id)
	if err != nil {
		return "", nil, err
	}
	if d.Environment != env {
		return "", nil, sello.WebhookDeliveryNotFound(id)
	}
	return env, d, nil
}

// endpointsView is the endpoints page.
type endpointsView struct {
	Env       sello.Environment
	Endpoints []*sello.WebhookEndpoint
	CanManage bool
	Now       time.Time
}

// handleWebhooks lists the company's endpoints in the environment.
func (s *Server) handleWebhooks(w http.ResponseWriter, r *http.Request, v *visit) error {
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	es, err := s.Store.FindWebhookEndpoints(r.Context(), v.Tenant.ID, env)
	if err != nil {
		return err
	}
	view := endpointsView{Env: env, Endpoints: es, CanManage: canManageWebhooks(v), Now: s.now()}
	s.render(w, r, http.StatusOK, webhooksPage(s.webhookLayout(r, v, v.T("Webhooks")), view))
	return nil
}

// endpointForm is the form that adds an endpoint.
type endpointForm struct {
	Env sello.Environment
	URL string
	// Some: only the Events marked; otherwise every event.
	Some   bool
	Events []sello.EventType
	Error  string
}

// handleWebhookNew shows the form that adds an endpoint.
func (s *Server) handleWebhookNew(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, webhookNewPage(s.layout(r, v, v.T("Add an endpoint")), endpointForm{Env: env}))
	return nil
}

// handleWebhookCreate adds an endpoint: its URL through the URL policy
// and the address guard (webhook.NormalizeEndpointURL; loopback only
// where the server allows it, never in eCF), its event filter, a
// generated secret. The answer shows the secret, once.
func (s *Server) handleWebhookCreate(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	pageEnv, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	f := endpointForm{Env: pageEnv, URL: strings.TrimSpace(r.PostFormValue("url")), Some: r.PostFormValue("scope") == "some"}
	if env, err := sello.ParseEnvironment(r.PostFormValue("environment")); err == nil {
		f.Env = env
	}
	fail := func(err error) error {
		if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			return err
		}
		f.Error = errorMessage(v.Lang, err)
		s.render(w, r, http.StatusBadRequest, webhookNewPage(s.layout(r, v, v.T("Add an endpoint")), f))
		return nil
	}
	if f.Some {
		if f.Events, err = sello.ParseWebhookEventTypes(r.PostForm["events"]); err != nil {
			return fail(err)
		}
		if len(f.Events) == 0 {
			return fail(pageError(sello.CodeInvalidRequest, v.T("Mark at least one event, or choose every event.")))
		}
	}
	norm, err := webhook.NormalizeEndpointURL(f.URL, f.Env, s.AllowLoopbackWebhooks)
	if err != nil {
		return fail(err)
	}
	secret := sello.GenerateWebhookSecret()
	var events []sello.EventType
	if f.Some {
		events = f.Events
	}
	e, err := sello.NewWebhookEndpoint(s.MasterKey, v.Tenant.ID, f.Env, norm, events, secret)
	if err != nil {
		return fail(err)
	}
	if err := s.Store.CreateWebhookEndpoint(ctx, e); err != nil {
		return err
	}
	if err := s.auditWebhook(ctx, v, "webhook_endpoint.created", e.ID, nil, auditOfEndpoint(e)); err != nil {
		return err
	}
	shown := secretShown{Env: e.Environment, Endpoint: e, Secret: secret}
	s.render(w, r, http.StatusOK, webhookSecretPage(s.layout(r, v, v.T("Endpoint added")), shown))
	return nil
}

// secretShown is the page that shows a new secret, once: after an
// endpoint is added, or its secret rotated.
type secretShown struct {
	Env      sello.Environment
	Endpoint *sello.WebhookEndpoint
	Secret   string
	// Rotated: the secret replaces others, which sign too until
	// PreviousUntil (nil: they stopped at once).
	Rotated       bool
	PreviousUntil *time.Time
}

// endpointView is one endpoint's page.
type endpointView struct {
	Env       sello.Environment
	Endpoint  *sello.WebhookEndpoint
	CanManage bool
	// Secrets are those that sign now, newest first.
	Secrets []sello.WebhookSecret
	// Recent are its latest deliveries.
	Recent []*sello.WebhookDelivery
}

// recentDeliveries is how many deliveries an endpoint's page shows.
const recentDeliveries = 10

// handleWebhookEndpoint shows one endpoint: its state, its secrets (when
// each was made and until when it signs, never the secret), its latest
// deliveries, and what may be done with it.
func (s *Server) handleWebhookEndpoint(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	env, e, err := s.findEndpoint(ctx, r, v)
	if err != nil {
		return err
	}
	recent, _, err := sello.WebhookDeliveryPage(ctx, s.Store, v.Tenant.ID, env, sello.WebhookDeliveryFilter{EndpointID: e.ID, Limit: recentDeliveries})
	if err != nil {
		return err
	}
	view := endpointView{Env: env, Endpoint: e, CanManage: canManageWebhooks(v), Secrets: e.SigningSecrets(s.now()), Recent: recent}
	s.render(w, r, http.StatusOK, webhookEndpointPage(s.webhookLayout(r, v, e.URL), view))
	return nil
}

// handleWebhookPause pauses an endpoint: its new deliveries are held.
func (s *Server) handleWebhookPause(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	env, e, err := s.findEndpoint(ctx, r, v)
	if err != nil {
		return err
	}
	if err := s.Store.PauseWebhookEndpoint(ctx, v.Tenant.ID, e.ID); err != nil {
		return err
	}
	if e.Status != sello.WebhookEndpointPaused {
		if err := s.auditWebhook(ctx, v, "webhook_endpoint.paused", e.ID,
			map[string]any{"status": e.Status}, map[string]any{"status": sello.WebhookEndpointPaused}); err != nil {
			return err
		}
	}
	s.redirect(w, r, endpointPath(env, e.ID)+"?done=paused")
	return nil
}

// handleWebhookResume makes a paused or disabled endpoint active again;
// its held deliveries go out.
func (s *Server) handleWebhookResume(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	env, e, err := s.findEndpoint(ctx, r, v)
	if err != nil {
		return err
	}
	n, err := s.Store.ResumeWebhookEndpoint(ctx, v.Tenant.ID, e.ID)
	if err != nil {
		return err
	}
	if e.Status != sello.WebhookEndpointActive {
		before := map[string]any{"status": e.Status}
		if e.DisabledReason != "" {
			before["disabledReason"] = e.DisabledReason
		}
		if err := s.auditWebhook(ctx, v, "webhook_endpoint.resumed", e.ID, before,
			map[string]any{"status": sello.WebhookEndpointActive, "heldDeliveriesQueued": n}); err != nil {
			return err
		}
	}
	s.redirect(w, r, endpointPath(env, e.ID)+"?done=resumed&n="+strconv.Itoa(n))
	return nil
}

// handleWebhookRotate gives an endpoint a new generated secret; the
// secrets that signed keep signing beside it for the overlap chosen
// (hours; 0 stops them at once). The answer shows the new secret, once.
func (s *Server) handleWebhookRotate(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	env, e, err := s.findEndpoint(ctx, r, v)
	if err != nil {
		return err
	}
	hours, err := strconv.Atoi(r.PostFormValue("overlap"))
	if err != nil || !slices.Contains(overlapChoices, hours) {
		return pageError(sello.CodeInvalidRequest, v.T("Choose how long the previous secret keeps signing."))
	}
	overlap := time.Duration(hours) * time.Hour
	now := s.now()
	before := len(e.SigningSecrets(now))
	secret := sello.GenerateWebhookSecret()
	sealed, err := sello.NewWebhookSecret(s.MasterKey, e.ID, secret)
	if err != nil {
		return err
	}
	if err := s.Store.RotateWebhookSecret(ctx, v.Tenant.ID, e.ID, sealed, overlap, now); err != nil {
		return err
	}
	shown := secretShown{Env: env, Endpoint: e, Secret: secret, Rotated: true}
	after := map[string]any{"secretId": sealed.ID, "overlapHours": hours}
	if overlap > 0 && before > 0 {
		until := now.Add(overlap)
		shown.PreviousUntil = &until
		after["previousSignUntil"] = until.UTC().Format(time.RFC3339)
	}
	if err := s.auditWebhook(ctx, v, "webhook_endpoint.secret_rotated", e.ID, map[string]any{"signingSecrets": before}, after); err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, webhookSecretPage(s.layout(r, v, v.T("New secret")), shown))
	return nil
}

// handleWebhookTest sends the endpoint a test event and waits a moment
// for the receiver's answer, then shows the delivery (which keeps
// refreshing until the answer comes, if it has not yet).
func (s *Server) handleWebhookTest(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	env, e, err := s.findEndpoint(ctx, r, v)
	if err != nil {
		return err
	}
	d, err := s.Store.CreateTestWebhookDelivery(ctx, v.Tenant.ID, e.ID, s.now())
	if err != nil {
		return err
	}
	if err := s.auditWebhook(ctx, v, "webhook_endpoint.tested", e.ID, nil, map[string]any{"deliveryId": d.ID}); err != nil {
		return err
	}
	done := "test"
	if d.Status == sello.WebhookHeld {
		done = "held"
	} else {
		wctx, cancel := context.WithTimeout(ctx, webhookTestWait)
		_, err := sello.WaitFirstWebhookAttempt(wctx, s.Store, v.Tenant.ID, d.ID, webhookPoll)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && sello.ErrorCodeOf(err) != sello.CodeConflict {
			return err
		}
	}
	s.redirect(w, r, deliveryPath(env, d.ID)+"?done="+done)
	return nil
}

// handleWebhookDeleteForm asks to confirm an endpoint's deletion.
func (s *Server) handleWebhookDeleteForm(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	env, e, err := s.findEndpoint(r.Context(), r, v)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, webhookDeletePage(s.layout(r, v, v.T("Delete the endpoint")), endpointView{Env: env, Endpoint: e, CanManage: true}))
	return nil
}

// handleWebhookDelete deletes an endpoint: no more deliveries; its
// pending and held ones fail; its log stays until retention.
func (s *Server) handleWebhookDelete(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	env, e, err := s.findEndpoint(ctx, r, v)
	if err != nil {
		return err
	}
	if err := s.Store.DeleteWebhookEndpoint(ctx, v.Tenant.ID, e.ID, s.now()); err != nil {
		return err
	}
	if err := s.auditWebhook(ctx, v, "webhook_endpoint.deleted", e.ID, auditOfEndpoint(e), nil); err != nil {
		return err
	}
	s.redirect(w, r, webhooksPath(env)+"?done=deleted")
	return nil
}

// deliveriesView is a page of the delivery log.
type deliveriesView struct {
	Env        sello.Environment
	Deliveries []*sello.WebhookDelivery
	// Endpoints are the environment's endpoints (the filter's choices),
	// URLs by id (a deleted endpoint's deliveries show its id).
	Endpoints []*sello.WebhookEndpoint
	URLs      map[string]string
	// Failed: the failed view (?estado=fallidas); EndpointID: one
	// endpoint's (?endpoint=).
	Failed     bool
	EndpointID string
	// Cursor is this page's (?cursor=); Next the next page's, "" on the
	// last.
	Cursor, Next string
	CanManage    bool
	// Since is the replay form's default: a day ago, as a
	// datetime-local value in the DR's time.
	Since string
}

// query is the page's query with changes (a value "" drops the key).
func (d deliveriesView) query(changes ...string) string {
	q := url.Values{}
	if d.Failed {
		q.Set("estado", failedView)
	}
	if d.EndpointID != "" {
		q.Set("endpoint", d.EndpointID)
	}
	for i := 0; i+1 < len(changes); i += 2 {
		if changes[i+1] == "" {
			q.Del(changes[i])
		} else {
			q.Set(changes[i], changes[i+1])
		}
	}
	if len(q) == 0 {
		return deliveriesPath(d.Env)
	}
	return deliveriesPath(d.Env) + "?" + q.Encode()
}

// handleDeliveries lists the environment's deliveries, newest first, a
// page at a time: all, or the failed ones (?estado=fallidas), of every
// endpoint or one (?endpoint=).
func (s *Server) handleDeliveries(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	view := deliveriesView{
		Env: env, Failed: q.Get("estado") == failedView, EndpointID: q.Get("endpoint"), Cursor: q.Get("cursor"),
		CanManage: canManageWebhooks(v), URLs: map[string]string{},
		Since: s.now().Add(-24 * time.Hour).In(sello.DRZone).Format(datetimeLocal),
	}
	if view.Endpoints, err = s.Store.FindWebhookEndpoints(ctx, v.Tenant.ID, env); err != nil {
		return err
	}
	for _, e := range view.Endpoints {
		view.URLs[e.ID] = e.URL
	}
	f := sello.WebhookDeliveryFilter{EndpointID: view.EndpointID, FailedOnly: view.Failed, Cursor: view.Cursor, Limit: deliveriesPageSize}
	if view.Deliveries, view.Next, err = sello.WebhookDeliveryPage(ctx, s.Store, v.Tenant.ID, env, f); err != nil {
		if sello.ErrorCodeOf(err) == sello.CodeInvalidRequest {
			return pageError(sello.CodeInvalidRequest, v.T("This page of the log does not exist. Start again from the first page."))
		}
		return err
	}
	title := v.T("Deliveries")
	if view.Failed {
		title = v.T("Failed deliveries")
	}
	s.render(w, r, http.StatusOK, deliveriesPage(s.webhookLayout(r, v, title), view))
	return nil
}

// datetimeLocal is the form of an <input type="datetime-local">'s value.
const datetimeLocal = "2006-01-02T15:04"

// handleReplayFailed replays every failed delivery of the environment
// created since the time given (of one endpoint, or all), each once:
// spec §6.4.6.
func (s *Server) handleReplayFailed(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	env, err := pageEnvOf(r, v)
	if err != nil {
		return err
	}
	since, err := parseLocalTime(r.PostFormValue("since"))
	if err != nil {
		return pageError(sello.CodeInvalidRequest, v.T("Give the date and time from which to send the failed deliveries again."))
	}
	endpointID := r.PostFormValue("endpoint")
	if endpointID != "" {
		if e, err := s.Store.FindWebhookEndpoint(ctx, v.Tenant.ID, endpointID); err != nil {
			return err
		} else if e.Environment != env {
			return sello.WebhookEndpointNotFound(endpointID)
		}
	}
	n, err := s.Store.ReplayFailedWebhookDeliveries(ctx, v.Tenant.ID, env, endpointID, since, s.now())
	if err != nil {
		return err
	}
	target := endpointID
	if target == "" {
		target = string(env)
	}
	if err := s.auditWebhook(ctx, v, "webhook_delivery.failed_replayed", target, nil, map[string]any{
		"environment": env, "endpointId": endpointID, "since": since.UTC().Format(time.RFC3339), "replayed": n,
	}); err != nil {
		return err
	}
	q := url.Values{"estado": {failedView}, "done": {"replayed-failed"}, "n": {strconv.Itoa(n)}}
	s.redirect(w, r, deliveriesPath(env)+"?"+q.Encode())
	return nil
}

// parseLocalTime reads a datetime-local value (with or without seconds)
// in the Dominican Republic's time.
func parseLocalTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{datetimeLocal, datetimeLocal + ":05"} {
		if t, err := time.ParseInLocation(layout, s, sello.DRZone); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date and time: %q", s)
}

// deliveryView is one delivery's page.
type deliveryView struct {
	Env      sello.Environment
	Delivery *sello.WebhookDelivery
	// URL is its endpoint's; "" once the endpoint is deleted.
	URL       string
	CanManage bool
}

// Waiting reports whether the delivery is due and not yet attempted: the
// page then refreshes itself until the first answer.
func (d deliveryView) Waiting() bool {
	return d.Delivery.Status == sello.WebhookPending && len(d.Delivery.AttemptLog) == 0
}

// handleDelivery shows one delivery with every attempt: the request as
// sent (headers and body) and the receiver's answer (status, headers,
// body), or why there was none.
func (s *Server) handleDelivery(w http.ResponseWriter, r *http.Request, v *visit) error {
	ctx := r.Context()
	env, d, err := s.findDelivery(ctx, r, v)
	if err != nil {
		return err
	}
	view := deliveryView{Env: env, Delivery: d, CanManage: canManageWebhooks(v)}
	if e, err := s.Store.FindWebhookEndpoint(ctx, v.Tenant.ID, d.EndpointID); err == nil {
		view.URL = e.URL
	} else if sello.ErrorCodeOf(err) != sello.CodeNotFound {
		return err
	}
	s.render(w, r, http.StatusOK, deliveryPage(s.webhookLayout(r, v, v.T("Delivery")), view))
	return nil
}

// handleDeliveryReplay sends a delivery's event again, as a new delivery
// to the same endpoint, and shows it.
func (s *Server) handleDeliveryReplay(w http.ResponseWriter, r *http.Request, v *visit) error {
	if err := requireRole(v, webhookManagers...); err != nil {
		return err
	}
	ctx := r.Context()
	env, d, err := s.findDelivery(ctx, r, v)
	if err != nil {
		return err
	}
	nd, err := s.Store.ReplayWebhookDelivery(ctx, v.Tenant.ID, d.ID, s.now())
	if err != nil {
		return err
	}
	if err := s.auditWebhook(ctx, v, "webhook_delivery.replayed", d.ID,
		map[string]any{"status": d.Status, "attempts": d.Attempts},
		map[string]any{"deliveryId": nd.ID, "status": nd.Status}); err != nil {
		return err
	}
	done := "replayed"
	if nd.Status == sello.WebhookHeld {
		done = "held"
	}
	s.redirect(w, r, deliveryPath(env, nd.ID)+"?done="+done)
	return nil
}

// The pages' helpers.

// eventsLabel is an endpoint's event filter as the pages show it.
func eventsLabel(l *layoutData, e *sello.WebhookEndpoint) string {
	if len(e.Events) == 0 {
		return l.T("Every event")
	}
	names := make([]string, len(e.Events))
	for i, t := range e.Events {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// formatSeconds is t to the second, in the page's language and the DR's
// time: an attempt's time.
func formatSeconds(l *layoutData, t time.Time) string {
	return formatTime(l, t) + t.In(sello.DRZone).Format(":05")
}

// latency is an attempt's latency, rounded for reading.
func latency(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

// headerLines are headers as sorted "Name: value" lines.
func headerLines(h map[string][]string) []string {
	var out []string
	for k, vs := range h {
		for _, v := range vs {
			out = append(out, k+": "+v)
		}
	}
	sort.Strings(out)
	return out
}

// bodyText is a body as the page shows it: JSON indented, anything else
// as valid UTF-8.
func bodyText(b []byte) string {
	var buf bytes.Buffer
	if json.Valid(b) && json.Indent(&buf, b, "", "  ") == nil {
		return buf.String()
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// excerpt is the start of a body, on one line, at most n characters.
func excerpt(b []byte, n int) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Last is the delivery's latest attempt, nil before the first.
func (d deliveryView) Last() *sello.WebhookAttempt {
	if len(d.Delivery.AttemptLog) == 0 {
		return nil
	}
	return d.Delivery.AttemptLog[len(d.Delivery.AttemptLog)-1]
}

// eventInputID is the id of an event type's checkbox.
func eventInputID(t sello.EventType) string {
	return "webhook-event-" + strings.NewReplacer(".", "-", "_", "-").Replace(string(t))
}

// containsEvent reports whether ts has t.
func containsEvent(ts []sello.EventType, t sello.EventType) bool { return slices.Contains(ts, t) }

// overlapLabel is a rotation overlap's choice as the form shows it.
func overlapLabel(l *layoutData, hours int) string {
	switch {
	case hours == 0:
		return l.T("None: the previous secret stops signing now")
	case hours == 1:
		return l.T("1 hour")
	case hours > 24 && hours%24 == 0:
		return l.T("%d days", hours/24)
	}
	return l.T("%d hours", hours)
}

// endpointURLOf is the URL of a delivery's endpoint in the list, its id
// once the endpoint is deleted.
func endpointURLOf(view deliveriesView, d *sello.WebhookDelivery) string {
	if u, ok := view.URLs[d.EndpointID]; ok {
		return u
	}
	return d.EndpointID
}

// attemptError is a failed attempt's cause in the page's language, from its
// class and status; the delivery client's own words (English, technical)
// stay in the attempt's details.
func attemptError(l *layoutData, a *sello.WebhookAttempt) string {
	switch a.ErrorClass {
	case "":
		return ""
	case "http_status":
		if a.ResponseStatus >= 300 && a.ResponseStatus < 400 {
			return l.T("The endpoint answered HTTP %d, a redirect: redirects are not followed.", a.ResponseStatus)
		}
		return l.T("The endpoint answered HTTP %d.", a.ResponseStatus)
	case "dns":
		return l.T("The endpoint's host name could not be resolved.")
	case "connect":
		return l.T("No connection could be made to the endpoint.")
	case "tls":
		return l.T("The endpoint's TLS certificate or handshake failed.")
	case "timeout":
		return l.T("The endpoint did not answer in time.")
	case "blocked":
		return l.T("The endpoint's address is not allowed (only public addresses are).")
	}
	return l.T("The attempt failed.")
}
