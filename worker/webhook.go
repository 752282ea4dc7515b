package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/internal/tracing"
	"github.com/sello-do/sello/webhook"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Webhook delivery (DESIGN §5, docs/webhooks.md).
//
// Every delivery the store creates (the fan-out of an event, a replay, a
// test) comes with a sello.WebhookJob in the same transaction. One run of
// the job makes at most one attempt:
//
//	pending, due ──attempt──> RecordWebhookAttempt ──> succeeded | failed | pending at NextAttemptAt (the job snoozes until then)
//	pending, endpoint paused ──> HoldWebhookDelivery: held, the job ends (resuming queues a new job)
//	anything else (final, held, not due yet) ──> no attempt
//
// The attempt and its outcome are stored in one transaction; the delivery
// stays pending, with its job, until an attempt's outcome says otherwise.
// A process that dies mid-attempt leaves the job running; River rescues it
// and the attempt is made again, which receivers absorb by deduplicating
// on the event id. A job run again after its attempt was recorded (a crash
// before the snooze was saved) finds the delivery not due and snoozes
// until NextAttemptAt instead of attempting early.

// WebhookDisableAfter is how long an endpoint may fail without a single
// success: its next failed attempt disables it (DESIGN §5).
const WebhookDisableAfter = 5 * 24 * time.Hour

// errInterrupted is an attempt cut short by the job's context (shutdown):
// it is not recorded, and the job runs again.
var errInterrupted = errors.New("webhook attempt interrupted")

// webhookClients are the process's delivery clients: strict, the
// production policy, for every eCF endpoint; loopback, which also reaches
// 127.0.0.0/8 and ::1, for TesteCF and CerteCF endpoints when the
// allowance is on (nil otherwise). Each keeps its own connection pool, and
// has its dgii.Receptor for the buyers' receivers, which keeps their
// tokens.
type webhookClients struct {
	strict, loopback *webhook.Client
	receptors        map[*webhook.Client]*dgii.Receptor
}

// newWebhookClients makes the clients of opts; their receptors' tokens
// expire by now.
func newWebhookClients(opts webhook.Options, now func() time.Time) webhookClients {
	allow := opts.AllowLoopback
	opts.AllowLoopback = false
	c := webhookClients{strict: webhook.NewClient(opts), receptors: map[*webhook.Client]*dgii.Receptor{}}
	if allow {
		opts.AllowLoopback = true
		c.loopback = webhook.NewClient(opts)
	}
	for _, hc := range []*webhook.Client{c.strict, c.loopback} {
		if hc != nil {
			c.receptors[hc] = dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: hc.HTTPClient(), Now: now})
		}
	}
	return c
}

// webhookClient returns the client for an endpoint of env: the loopback
// allowance never applies to eCF.
func (w *Worker) webhookClient(env sello.Environment) *webhook.Client {
	if w.hooks.loopback != nil && env != sello.EnvProd {
		return w.hooks.loopback
	}
	return w.hooks.strict
}

// Close closes the idle connections of the webhook clients.
func (w *Worker) Close() {
	w.hooks.strict.Close()
	if w.hooks.loopback != nil {
		w.hooks.loopback.Close()
	}
}

// webhookWorker runs sello.WebhookJob: one attempt per run, then a snooze
// until the next attempt is due.
type webhookWorker struct {
	river.WorkerDefaults[sello.WebhookJob]
	w *Worker
}

// NextRetry spaces the runs after a failure of the store (see retryDelay):
// River's default would wait days between the later ones.
func (ww *webhookWorker) NextRetry(job *river.Job[sello.WebhookJob]) time.Time {
	return time.Now().Add(retryDelay(job.Attempt))
}

func (ww *webhookWorker) Work(ctx context.Context, job *river.Job[sello.WebhookJob]) error {
	next, err := ww.w.DeliverWebhook(ctx, job.Args.DeliveryID)
	switch {
	case errors.Is(err, errInterrupted):
		// Shutting down: run again as soon as a runner starts, without
		// counting a failed run.
		return river.JobSnooze(0)
	case err != nil:
		return err
	case next != nil:
		return river.JobSnooze(max(next.Sub(ww.w.cfg.Now()), 0))
	}
	return nil
}

// DeliverWebhook makes the next attempt of a delivery, if it is due, and
// stores it with its outcome; it returns when the delivery is due again, or
// nil when the job is done with it (succeeded, failed, held, or deleted by
// retention).
//
// Outcomes: any 2xx succeeds; 410 Gone fails the delivery and disables the
// endpoint; any other failure is retried per webhook.RetryDelay (at most
// sello.MaxWebhookAttempts attempts), and disables the endpoint when it has
// failed without a success for WebhookDisableAfter. A pending delivery
// whose endpoint is paused is held instead; one that is not due yet is
// left alone (its time is returned). An attempt cut short by ctx is not
// recorded, and an error wraps errInterrupted.
func (w *Worker) DeliverWebhook(ctx context.Context, deliveryID string) (*time.Time, error) {
	var work *sello.WebhookWork
	// A paused endpoint holds the delivery, unless it was resumed in
	// between; then the delivery is read again and attempted.
	for range 3 {
		var err error
		work, err = w.cfg.Store.FindWebhookWork(ctx, deliveryID)
		if sello.ErrorCodeOf(err) == sello.CodeNotFound {
			w.cfg.Logger.InfoContext(ctx, "webhook delivery gone", "delivery_id", deliveryID)
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("webhook delivery %s: %w", deliveryID, err)
		}
		d, e := work.Delivery, work.Endpoint
		switch {
		case d.Status != sello.WebhookPending:
			return nil, nil
		case e.Status == sello.WebhookEndpointDisabled:
			// DisableWebhookEndpoint failed the delivery after we read it.
			return nil, nil
		case d.NextAttemptAt != nil && d.NextAttemptAt.After(w.cfg.Now()):
			return d.NextAttemptAt, nil
		case e.Status == sello.WebhookEndpointPaused:
			held, err := w.cfg.Store.HoldWebhookDelivery(ctx, deliveryID)
			if err != nil {
				return nil, fmt.Errorf("hold webhook delivery %s: %w", deliveryID, err)
			} else if held {
				return nil, nil
			}
			continue
		}
		return w.attemptWebhook(ctx, work)
	}
	return nil, fmt.Errorf("webhook delivery %s: its endpoint keeps being paused and resumed", deliveryID)
}

// attemptWebhook makes one attempt of a pending, due delivery and records
// it.
func (w *Worker) attemptWebhook(ctx context.Context, work *sello.WebhookWork) (*time.Time, error) {
	d, e, ev := work.Delivery, work.Endpoint, work.Event
	now := w.cfg.Now()
	secrets, err := e.ActiveSecrets(w.cfg.MasterKey, now)
	if err != nil {
		return nil, fmt.Errorf("webhook delivery %s: %w", d.ID, err)
	} else if len(secrets) == 0 {
		return nil, fmt.Errorf("webhook delivery %s: endpoint %s has no active secret", d.ID, e.ID)
	}
	body, err := json.Marshal(ev.Resource())
	if err != nil {
		return nil, fmt.Errorf("webhook delivery %s: encode event: %w", d.ID, err)
	}
	a := w.deliverWebhook(ctx, work, webhook.Request{
		URL:       e.URL,
		EventID:   ev.ID,
		EventType: string(ev.Type),
		Body:      body,
		Secrets:   secrets,
		Version:   w.cfg.Version,
		Now:       now,
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("webhook delivery %s: %w: %w", d.ID, errInterrupted, err)
	}
	w.cfg.Metrics.WebhookAttempt(a.Class)
	if a.Class == webhook.ClassBlocked && e.Environment == sello.EnvProd && w.hooks.loopback != nil && strings.Contains(a.Message, "loopback") {
		a.Message += " (the loopback allowance of --allow-loopback-webhooks never applies to eCF)"
	}

	n := d.Attempts + 1
	o := sello.WebhookOutcome{Status: sello.WebhookFailed}
	if a.Success() {
		o.Status = sello.WebhookSucceeded
	} else if delay, ok := w.retryDelay(n, &a); ok {
		o = sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: w.cfg.Now().Add(delay)}
	}
	after, err := w.cfg.Store.RecordWebhookAttempt(ctx, &sello.WebhookAttempt{
		DeliveryID:      d.ID,
		At:              a.At,
		RequestHeaders:  a.RequestHeader,
		RequestBody:     a.RequestBody,
		ResponseStatus:  a.Status,
		ResponseHeaders: a.ResponseHeader,
		ResponseBody:    a.ResponseBody,
		Latency:         a.Latency,
		DialedIP:        a.RemoteIP,
		ErrorClass:      string(a.Class),
		Error:           a.Message,
	}, o)
	if err != nil {
		return nil, fmt.Errorf("record webhook attempt of %s: %w", d.ID, err)
	}
	log := w.cfg.Logger.With("delivery_id", d.ID, "endpoint_id", e.ID, "tenant_id", e.TenantID, "attempt", n)
	if a.Success() {
		log.DebugContext(ctx, "webhook delivered", "status", a.Status, "latency", a.Latency)
		return nil, nil
	}
	log.InfoContext(ctx, "webhook attempt failed", "class", a.Class, "status", a.Status, "error", a.Message, "outcome", after.Status)

	disabled, err := w.disableIfDead(ctx, e, &a, now)
	if err != nil {
		return nil, err
	} else if disabled || after.Status != sello.WebhookPending {
		return nil, nil
	}
	return after.NextAttemptAt, nil
}

// deliverWebhook makes the attempt r of work's delivery, in a span
// "webhook attempt" when ctx's trace is recorded (docs/tracing.md).
func (w *Worker) deliverWebhook(ctx context.Context, work *sello.WebhookWork, r webhook.Request) webhook.Attempt {
	ctx, span := tracing.Start(ctx, "webhook attempt", trace.WithSpanKind(trace.SpanKindClient))
	if !span.IsRecording() {
		return w.webhookClient(work.Endpoint.Environment).Deliver(ctx, r)
	}
	d, e := work.Delivery, work.Endpoint
	span.SetAttributes(attrWebhookDelivery.String(d.ID), attrWebhookEndpoint.String(e.ID), attrWebhookEvent.String(r.EventType),
		attrWebhookAttempt.Int(d.Attempts+1), tracing.AttrTenantID.String(e.TenantID), tracing.AttrEnvironment.String(string(e.Environment)))
	a := w.webhookClient(e.Environment).Deliver(ctx, r)
	if a.Status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(a.Status))
	}
	if !a.Success() {
		span.SetAttributes(attrWebhookClass.String(string(a.Class)))
		span.SetStatus(codes.Error, a.Message)
	}
	span.End()
	return a
}

// Attribute keys of the webhook attempts' spans.
const (
	attrWebhookDelivery = attribute.Key("sello.webhook.delivery_id")
	attrWebhookEndpoint = attribute.Key("sello.webhook.endpoint_id")
	attrWebhookEvent    = attribute.Key("sello.webhook.event_type")
	// attrWebhookAttempt is the attempt's number, 1 for the first.
	attrWebhookAttempt = attribute.Key("sello.webhook.attempt")
	// attrWebhookClass is why a failed attempt failed (webhook.ErrorClass).
	attrWebhookClass = attribute.Key("sello.webhook.error_class")
)

// retryDelay is cfg.WebhookDelay, or webhook.RetryDelay.
func (w *Worker) retryDelay(n int, a *webhook.Attempt) (time.Duration, bool) {
	if w.cfg.WebhookDelay != nil {
		return w.cfg.WebhookDelay(n, a)
	}
	return webhook.RetryDelay(n, a, nil)
}

// disableIfDead disables the endpoint e after the failed attempt a: when
// the receiver answered 410 Gone, or when the endpoint has failed since
// more than WebhookDisableAfter ago. DisableWebhookEndpoint fails its
// pending and held deliveries and writes webhook_endpoint.disabled.
//
// The attempt is recorded first, so a crash in between leaves the endpoint
// active; its next failure (a 410 again, or still failing) disables it.
func (w *Worker) disableIfDead(ctx context.Context, e *sello.WebhookEndpoint, a *webhook.Attempt, now time.Time) (bool, error) {
	var reason string
	switch {
	case a.Gone():
		reason = "The endpoint answered 410 Gone, which asks Sello to stop sending."
	case e.FailingSince != nil && now.Sub(*e.FailingSince) >= WebhookDisableAfter:
		// Read again: a success of another delivery may have cleared it.
		cur, err := w.cfg.Store.FindWebhookEndpoint(ctx, e.TenantID, e.ID)
		if err != nil {
			return false, fmt.Errorf("webhook endpoint %s: %w", e.ID, err)
		}
		if cur.FailingSince == nil || now.Sub(*cur.FailingSince) < WebhookDisableAfter {
			return false, nil
		}
		reason = fmt.Sprintf("Every delivery has failed since %s, more than %d days without a success; the last error: %s",
			sello.FormatTime(*cur.FailingSince), int(WebhookDisableAfter/(24*time.Hour)), a.Message)
	default:
		return false, nil
	}
	done, err := w.cfg.Store.DisableWebhookEndpoint(ctx, e.TenantID, e.ID, reason, now)
	if err != nil {
		return false, fmt.Errorf("disable webhook endpoint %s: %w", e.ID, err)
	}
	if done {
		w.cfg.Logger.WarnContext(ctx, "webhook endpoint disabled", "endpoint_id", e.ID, "tenant_id", e.TenantID, "reason", reason)
	}
	return true, nil
}
