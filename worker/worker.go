package worker

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/xmldsig"
)

// Config is what the lifecycle needs.
type Config struct {
	Store     sello.Store
	DGII      *dgii.Client
	MasterKey *sello.MasterKey
	Logger    *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// FirstPoll is how long after a send the first verdict query waits
	// (default 250 ms; DGII's average validation takes 200 ms).
	FirstPoll time.Duration
	// MaxWait caps the delay between two tries while DGII is down or still
	// validating (default 1 minute).
	MaxWait time.Duration
	// HoldFor is how long a document's job may wait in process, in one run,
	// for DGII's verdict before it gives its worker back and snoozes
	// (default 10 s). Waiting in process costs a goroutine; a snooze costs
	// the job queue two writes and the document a read.
	HoldFor time.Duration
	// Webhooks configures the webhook delivery client, shared by every
	// delivery of the process. Its AllowLoopback applies only to endpoints
	// of TesteCF and CerteCF: eCF endpoints always get the production
	// policy (see webhookClient).
	Webhooks webhook.Options
	// Version is Sello's version, sent in the deliveries' User-Agent.
	Version string
	// WebhookDelay is the wait after failed attempt n (1 for the first) of
	// a delivery before the next, false when none is left; nil means
	// webhook.RetryDelay with its jitter. Tests shorten it.
	WebhookDelay func(n int, a *webhook.Attempt) (time.Duration, bool)
	// DeliveryDelay is the wait after failed run n (1 for the first) of a
	// document's delivery to its buyer, before ±20% jitter; nil means
	// sello.DeliveryRetryDelay. Tests shorten it. Deliveries use the
	// webhook clients (Webhooks), so the same SSRF guard and loopback
	// allowance apply.
	DeliveryDelay func(n int) time.Duration
	// FirstDeliveryFor bounds the first try of a delivery, which the
	// document's job makes right after DGII's acceptance (default
	// DefaultFirstDeliveryFor): a buyer slower than that does not hold a
	// worker of the document's lifecycle, its delivery is tried again by a
	// DeliveryJob.
	FirstDeliveryFor time.Duration
	// DirectoryTTL is how long an answer of DGII's directory is kept
	// (default DefaultDirectoryTTL).
	DirectoryTTL time.Duration
	// SequenceThresholds says when an e-NCF range warns with sequence.low
	// and sequence.expiring; zero fields take
	// sello.DefaultSequenceThresholds.
	SequenceThresholds sello.SequenceThresholds
	// ContingencyAfter is how long DGII must fail every call in an
	// environment before it enters contingency (default
	// sello.DefaultContingencyAfter).
	ContingencyAfter time.Duration
	// ConfirmDelay is how long the confirmation of an inbound document
	// received age ago waits before asking DGII again; nil means
	// sello.InboundConfirmDelay. Tests shorten it.
	ConfirmDelay func(age time.Duration) time.Duration
	// ConfirmFor is how long after a receipt the confirmation keeps asking
	// (default sello.InboundConfirmFor).
	ConfirmFor time.Duration
	// Metrics observes the documents' transitions and deliveries, the
	// webhook attempts and the checks' figures; nil observes nothing.
	Metrics *metrics.Metrics
}

// Worker runs the lifecycle's jobs.
type Worker struct {
	cfg Config

	mu        sync.Mutex
	current   map[certKey]certEntry             // each tenant's signing certificate and signer (see certTTL)
	sessions  map[string]*dgii.Session          // by certificate id
	directory map[dirKey]dirEntry               // DGII's directory answers, kept DirectoryTTL
	reach     map[sello.Environment]*reachEntry // DGII's reachability as this process last knew it

	hooks webhookClients

	// signing bounds the documents signed at once (see New).
	signing chan struct{}

	// verdicts learns when to ask DGII for a verdict.
	verdicts verdictClock

	// draining is closed by Drain: runs stop waiting in process.
	draining  chan struct{}
	drainOnce sync.Once
}

// New returns a Worker; cfg.Store, cfg.DGII and cfg.MasterKey are required.
func New(cfg Config) *Worker {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FirstPoll == 0 {
		cfg.FirstPoll = 250 * time.Millisecond
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = time.Minute
	}
	if cfg.HoldFor == 0 {
		cfg.HoldFor = 10 * time.Second
	}
	if cfg.DeliveryDelay == nil {
		cfg.DeliveryDelay = sello.DeliveryRetryDelay
	}
	if cfg.FirstDeliveryFor <= 0 {
		cfg.FirstDeliveryFor = DefaultFirstDeliveryFor
	}
	if cfg.DirectoryTTL == 0 {
		cfg.DirectoryTTL = DefaultDirectoryTTL
	}
	cfg.SequenceThresholds = cfg.SequenceThresholds.WithDefaults()
	if cfg.ContingencyAfter <= 0 {
		cfg.ContingencyAfter = sello.DefaultContingencyAfter
	}
	confirmDefaults(&cfg)
	// Signing is the lifecycle's one CPU-heavy step. Left to every worker
	// at once it fills every core, and the goroutine holding the store's
	// writer (whom every worker waits for) queues behind the signatures for
	// the CPU; one core is kept for the rest.
	slots := max(runtime.GOMAXPROCS(0)-1, 1)
	return &Worker{cfg: cfg, current: map[certKey]certEntry{}, sessions: map[string]*dgii.Session{}, directory: map[dirKey]dirEntry{}, reach: map[sello.Environment]*reachEntry{}, hooks: newWebhookClients(cfg.Webhooks, cfg.Now), signing: make(chan struct{}, slots), draining: make(chan struct{})}
}

// Drain makes runs that wait in process for DGII's verdict, and those that
// would, snooze instead, so that a graceful stop of the job runner does not
// wait for DGII. Call it before stopping the runner.
func (w *Worker) Drain() { w.drainOnce.Do(func() { close(w.draining) }) }

// Workers returns the River workers of every lifecycle step, for the store's
// job runner.
func (w *Worker) Workers() *river.Workers {
	ws := river.NewWorkers()
	river.AddWorker(ws, &processWorker{w: w})
	river.AddWorker(ws, &certificateCheckWorker{w: w})
	river.AddWorker(ws, &sequenceCheckWorker{w: w})
	river.AddWorker(ws, &webhookWorker{w: w})
	river.AddWorker(ws, &deliveryWorker{w: w})
	river.AddWorker(ws, &approvalWorker{w: w})
	river.AddWorker(ws, &voidWorker{w: w})
	river.AddWorker(ws, &eventRetentionWorker{w: w})
	river.AddWorker(ws, &receiverAuthPruneWorker{w: w})
	river.AddWorker(ws, &portalPruneWorker{w: w})
	river.AddWorker(ws, &certificationWorker{w: w})
	river.AddWorker(ws, &contingencyWorker{w: w})
	river.AddWorker(ws, &inboundConfirmWorker{w: w})
	return ws
}

// certTTL is how long the worker keeps using the signing certificate it
// read for a tenant before asking the store again (each document asks three
// times: sign, send, poll). A certificate added with sello certificates add
// is used from at most certTTL later; a kept one is never used outside its
// validity, and "no certificate" is not kept.
const certTTL = 5 * time.Second

type certKey struct {
	tenantID string
	env      sello.Environment
}

// certEntry is a tenant's signing certificate as last read, with its
// signer (the key decrypted and parsed once per certificate).
type certEntry struct {
	cert   *sello.Certificate
	signer *xmldsig.Signer
	until  time.Time
}

// signer returns the tenant's current certificate in env and its signer:
// the one read less than certTTL ago if still valid, else the store's.
// Returns NOT_FOUND when the tenant has no valid certificate.
func (w *Worker) signer(ctx context.Context, tenantID string, env sello.Environment) (*sello.Certificate, *xmldsig.Signer, error) {
	now, k := w.cfg.Now(), certKey{tenantID, env}
	w.mu.Lock()
	cur, ok := w.current[k]
	w.mu.Unlock()
	if ok && now.Before(cur.until) && cur.cert.Valid(now) {
		return cur.cert, cur.signer, nil
	}
	cert, err := w.cfg.Store.FindSigningCertificate(ctx, tenantID, env, now)
	if err != nil {
		return nil, nil, err
	}
	s := cur.signer
	if !ok || cur.cert.ID != cert.ID {
		if s, err = w.newSigner(cert); err != nil {
			return nil, nil, err
		}
	}
	w.mu.Lock()
	w.current[k] = certEntry{cert, s, now.Add(certTTL)}
	w.mu.Unlock()
	return cert, s, nil
}

// newSigner opens the certificate's sealed key with the master key.
func (w *Worker) newSigner(cert *sello.Certificate) (*xmldsig.Signer, error) {
	key, x, err := cert.OpenKey(w.cfg.MasterKey)
	if err != nil {
		return nil, err
	}
	return &xmldsig.Signer{Key: key, Cert: x}, nil
}

// session returns the DGII session of the tenant in env, authenticated with
// its current certificate (tokens are cached per session).
func (w *Worker) session(ctx context.Context, tenantID string, env sello.Environment) (*dgii.Session, error) {
	sess, _, err := w.sessionSigner(ctx, tenantID, env)
	return sess, err
}

// sessionSigner returns the DGII session of the tenant in env and the
// signer of the certificate it authenticates with. The session is made once
// per certificate: its RNC is the tenant's without a read of the store.
func (w *Worker) sessionSigner(ctx context.Context, tenantID string, env sello.Environment) (*dgii.Session, *xmldsig.Signer, error) {
	cert, s, err := w.signer(ctx, tenantID, env)
	if err != nil {
		return nil, nil, err
	}
	w.mu.Lock()
	sess, ok := w.sessions[cert.ID]
	w.mu.Unlock()
	if ok {
		return sess, s, nil
	}
	t, err := w.cfg.Store.FindTenantByID(ctx, tenantID)
	if err != nil {
		return nil, nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if sess, ok := w.sessions[cert.ID]; ok {
		return sess, s, nil
	}
	sess = w.cfg.DGII.Session(env, t.RNC, signFunc(s))
	w.sessions[cert.ID] = sess
	return sess, s, nil
}

// sender is the tenant in env as a sender to other taxpayers' receivers:
// its RNC, and its current certificate to sign their seeds.
func (w *Worker) sender(ctx context.Context, tenantID string, env sello.Environment) (dgii.Sender, *xmldsig.Signer, error) {
	sess, s, err := w.sessionSigner(ctx, tenantID, env)
	if err != nil {
		return dgii.Sender{}, nil, err
	}
	return dgii.Sender{Environment: env, RNC: sess.RNC(), Sign: signFunc(s)}, s, nil
}

// wait is how long to wait for DGII after waiting since `since`: a tenth
// of that, between 250 ms and MaxWait, with ±20% jitter, so a short wait
// (a validation, a blip) is ridden out quickly and a long outage is not
// hammered.
func (w *Worker) wait(since time.Time) time.Duration {
	d := min(max(w.cfg.Now().Sub(since)/10, 250*time.Millisecond), w.cfg.MaxWait)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// transition applies ch and returns the document after it; a CONFLICT means
// another run got there first, which is success for this one (and the
// document is read again: nil).
func (w *Worker) transition(ctx context.Context, ref sello.DocumentJob, ch sello.DocumentChange) (*sello.Document, error) {
	doc, err := w.cfg.Store.UpdateDocument(ctx, ref.TenantID, ref.Environment, ref.DocumentID, ch)
	if sello.ErrorCodeOf(err) == sello.CodeConflict {
		w.cfg.Logger.InfoContext(ctx, "transition already done", "document_id", ref.DocumentID, "to", ch.Status)
		return nil, nil
	}
	if err == nil && ch.Status != "" {
		w.cfg.Metrics.DocumentChanged(doc)
	}
	return doc, err
}

// fail moves the document to failed with a reason the tenant can act on.
func (w *Worker) fail(ctx context.Context, ref sello.DocumentJob, from sello.Status, reason string) (*sello.Document, error) {
	return w.transition(ctx, ref, sello.DocumentChange{
		From:      []sello.Status{from},
		Status:    sello.StatusFailed,
		Reason:    reason,
		EventType: sello.EventECFFailed,
		Severity:  "error",
		Message:   reason,
	})
}

// unavailable reports whether err means DGII could not be reached or
// answered 5xx: the step waits and tries again, without using an attempt.
func unavailable(err error) bool {
	return errors.Is(err, dgii.ErrUnavailable)
}
