package sello

import (
	"context"
	"fmt"
	"time"
)

// DGIIState is whether Sello can reach DGII's services in one environment
// (FACTS §5.3: contingency).
type DGIIState string

// The DGII states of an environment. available: documents are sent as they
// are signed. contingency: DGII has not answered for longer than the
// threshold (ContingencyAfter); documents are still accepted, numbered and
// signed, and wait. draining: DGII answers again and the documents that
// waited are being sent, oldest first; new ones wait behind them.
const (
	DGIIAvailable   DGIIState = "available"
	DGIIContingency DGIIState = "contingency"
	DGIIDraining    DGIIState = "draining"
)

// DefaultContingencyAfter is how long DGII must fail every call before an
// environment enters contingency.
const DefaultContingencyAfter = 5 * time.Minute

// ContingencyDeadline is how long after signing an e-CF issued in
// contingency must reach DGII (the 2026 Instructivo Contingencia FE, via a
// secondary source: FACTS §5.3, UNCERTAIN).
const ContingencyDeadline = 72 * time.Hour

// ContingencyWarnAfter is when a waiting document is said to approach
// ContingencyDeadline: two thirds of it (48 hours), which leaves a day to
// act (report the contingency, replace the document).
const ContingencyWarnAfter = ContingencyDeadline * 2 / 3

// Reachability is what Sello knows of DGII's services in one environment,
// shared by every process (the store keeps it).
type Reachability struct {
	Environment Environment
	State       DGIIState
	// FailingSince is the first of the failed calls since the last call
	// that succeeded; nil after a success.
	FailingSince *time.Time
	LastFailure  *time.Time
	LastSuccess  *time.Time
	// Since is when the current or last contingency began (its first
	// failed call); Until when the last one ended (the call that
	// succeeded), nil while it lasts.
	Since *time.Time
	Until *time.Time
	// UpdatedAt is the time of the last change.
	UpdatedAt time.Time
}

// NewReachability is env's reachability before any call: available.
func NewReachability(env Environment) *Reachability {
	return &Reachability{Environment: env, State: DGIIAvailable}
}

// Held reports whether documents wait instead of being sent by their own
// jobs: in contingency and while draining, the contingency job
// (ContingencyJob) sends them, oldest first.
func (r *Reachability) Held() bool { return r.State != DGIIAvailable }

// SignsInContingency reports whether a document signed now is an e-CF
// issued in contingency (Document.Contingency): DGII is down past the
// threshold. While draining DGII answers again, so it is not.
func (r *Reachability) SignsInContingency() bool { return r.State == DGIIContingency }

// Clean reports whether a successful call changes nothing but LastSuccess:
// available with no failure since the last success.
func (r *Reachability) Clean() bool { return r.State == DGIIAvailable && r.FailingSince == nil }

// LastSuccessEvery is how often a success is recorded in a clean
// environment (Clean), where nothing else changes: LastSuccess is then at
// most this old, for one write per environment per LastSuccessEvery
// instead of one per call to DGII. Successes that change the state are
// always recorded.
const LastSuccessEvery = time.Minute

// BeatDue reports whether a success at now is due to refresh LastSuccess:
// none is recorded, or the last is LastSuccessEvery old.
func (r *Reachability) BeatDue(now time.Time) bool {
	return r.LastSuccess == nil || now.Sub(*r.LastSuccess) >= LastSuccessEvery
}

// DGIIOutcome is what a call to DGII (or the end of a drain) tells of
// DGII's reachability.
type DGIIOutcome string

// The outcomes RecordDGIIOutcome applies.
const (
	// DGIIFailed: DGII could not be reached or answered 5xx/429.
	DGIIFailed DGIIOutcome = "failed"
	// DGIISucceeded: DGII answered.
	DGIISucceeded DGIIOutcome = "succeeded"
	// DGIIDrained: the contingency job found no document left waiting.
	DGIIDrained DGIIOutcome = "drained"
)

// apply returns r after outcome o at now, and the transition it makes
// ("" for none): a failure starts FailingSince and, once failures have
// lasted after with no success, enters contingency (from available or
// draining); a success clears FailingSince and turns contingency into
// draining (in a clean environment it only refreshes LastSuccess, at most
// every LastSuccessEvery); a drain's end turns draining into available.
func (r Reachability) apply(o DGIIOutcome, now time.Time, after time.Duration) (Reachability, DGIIState) {
	now = *StoredTime(&now)
	switch o {
	case DGIIFailed:
		if r.FailingSince == nil {
			r.FailingSince = &now
		}
		r.LastFailure = &now
		r.UpdatedAt = now
		if r.State != DGIIContingency && now.Sub(*r.FailingSince) >= after {
			r.State, r.Since, r.Until = DGIIContingency, r.FailingSince, nil
			return r, DGIIContingency
		}
	case DGIISucceeded:
		if r.Clean() && !r.BeatDue(now) {
			return r, ""
		}
		r.FailingSince, r.LastSuccess, r.UpdatedAt = nil, &now, now
		if r.State == DGIIContingency {
			r.State, r.Until = DGIIDraining, &now
			return r, DGIIDraining
		}
	case DGIIDrained:
		if r.State == DGIIDraining {
			r.State, r.UpdatedAt = DGIIAvailable, now
			return r, DGIIAvailable
		}
	}
	return r, ""
}

// TenantWaiting is a tenant that hears of an environment's contingency
// (one with a certificate there: it issues there) and how many of its
// documents in that environment wait to reach DGII (queued_for_signing or
// signed).
type TenantWaiting struct {
	TenantID string
	Waiting  int
}

// ReachabilityTx is what RecordDGIIOutcome needs of one store transaction.
type ReachabilityTx interface {
	// LockReachability returns env's reachability, locked until the
	// transaction ends (NewReachability when none is stored).
	LockReachability(ctx context.Context, env Environment) (*Reachability, error)
	// SaveReachability stores r.
	SaveReachability(ctx context.Context, r *Reachability) error
	// ContingencyTenants lists the tenants with a certificate in env, by
	// id, with their documents waiting there.
	ContingencyTenants(ctx context.Context, env Environment) ([]TenantWaiting, error)
	// InsertEvent writes ev to the outbox with its webhook deliveries.
	InsertEvent(ctx context.Context, ev *Event) error
	// InsertJobs queues jobs.
	InsertJobs(ctx context.Context, jobs []Job) error
}

// RecordDGIIOutcome applies outcome o in env in one transaction (inTx
// gives it and the store's clock): with the row locked, the transition
// happens once however many workers report at once. Entering contingency
// writes dgii.unavailable to every tenant of ContingencyTenants and, coming
// from available, queues the environment's ContingencyJob (while draining
// that job is already running); leaving it writes dgii.available with each
// tenant's waiting documents. It returns the reachability after and the
// state entered ("" when none). Returns INVALID_REQUEST for an unknown
// outcome.
func RecordDGIIOutcome(ctx context.Context, env Environment, o DGIIOutcome, after time.Duration, inTx func(fn func(tx ReachabilityTx, now time.Time) error) error) (*Reachability, DGIIState, error) {
	switch o {
	case DGIIFailed, DGIISucceeded, DGIIDrained:
	default:
		return nil, "", Errorf(CodeInvalidRequest, "Unknown DGII outcome %q.", o)
	}
	if after <= 0 {
		after = DefaultContingencyAfter
	}
	var out *Reachability
	var entered DGIIState
	err := inTx(func(tx ReachabilityTx, now time.Time) error {
		cur, err := tx.LockReachability(ctx, env)
		if err != nil {
			return err
		}
		next, to := cur.apply(o, now, after)
		out, entered = &next, to
		if next.UpdatedAt.Equal(cur.UpdatedAt) && to == "" {
			return nil // nothing changed (a drain's end outside draining)
		}
		if err := tx.SaveReachability(ctx, &next); err != nil {
			return err
		}
		if to != DGIIContingency && to != DGIIDraining {
			return nil
		}
		tenants, err := tx.ContingencyTenants(ctx, env)
		if err != nil {
			return err
		}
		for _, t := range tenants {
			if err := tx.InsertEvent(ctx, NewDGIIEvent(t, &next, now)); err != nil {
				return err
			}
		}
		if to == DGIIContingency && cur.State == DGIIAvailable {
			return tx.InsertJobs(ctx, []Job{ContingencyJob{Environment: env}})
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return out, entered, nil
}

// NewDGIIEvent is the event of r's last transition for tenant t:
// dgii.unavailable on entering contingency (payload since, waiting),
// dgii.available on leaving it (since, until, waiting). It has no document.
func NewDGIIEvent(t TenantWaiting, r *Reachability, now time.Time) *Event {
	ev := &Event{
		ID:          NewID(),
		Type:        EventDGIIUnavailable,
		CreatedAt:   now,
		TenantID:    t.TenantID,
		Environment: r.Environment,
		Data: EventData{
			Severity: "warning",
			Message: fmt.Sprintf("DGII's services for %s have not answered since %s: documents are still accepted, numbered and signed (contingency: true) and are sent, oldest first, when DGII returns. Report the contingency in DGII's Oficina Virtual.",
				r.Environment, FormatTime(*r.Since)),
			Payload: map[string]any{"since": FormatTime(*r.Since), "waiting": t.Waiting},
		},
	}
	if r.State != DGIIContingency {
		ev.Type = EventDGIIAvailable
		ev.Data.Severity = "info"
		waiting := "no document was waiting"
		switch {
		case t.Waiting == 1:
			waiting = "the document waiting is being sent"
		case t.Waiting > 1:
			waiting = fmt.Sprintf("the %d documents waiting are being sent, oldest first", t.Waiting)
		}
		ev.Data.Message = fmt.Sprintf("DGII's services for %s answer again (unreachable from %s to %s): %s.",
			r.Environment, FormatTime(*r.Since), FormatTime(*r.Until), waiting)
		ev.Data.Payload["until"] = FormatTime(*r.Until)
	}
	return ev
}

// ContingencyJob follows an environment through a contingency: while DGII
// is down it asks whether DGII answers again; once it does it sends the
// documents that waited, oldest first, and ends the drain. RecordDGIIOutcome
// inserts it when the environment enters contingency.
type ContingencyJob struct {
	Environment Environment `json:"environment"`
}

// Kind implements Job (River's JobArgs).
func (ContingencyJob) Kind() string { return "sello.contingency" }

// MaxAttempts implements JobMaxAttempts: as a document's job, so that a
// failing send does not drop the drain (its waits for DGII are snoozes,
// which do not count).
func (ContingencyJob) MaxAttempts() int { return DocumentJobMaxAttempts }

// ReachabilityStore keeps what Sello knows of DGII's reachability per
// environment (not per tenant: DGII is one service for all of them).
type ReachabilityStore interface {
	// FindReachability returns env's reachability, NewReachability when
	// nothing was recorded.
	FindReachability(ctx context.Context, env Environment) (*Reachability, error)
	// RecordDGIIOutcome records o in env (stores implement it with the
	// domain's RecordDGIIOutcome over their transaction and clock), after
	// being the contingency threshold. Returns INVALID_REQUEST.
	RecordDGIIOutcome(ctx context.Context, env Environment, o DGIIOutcome, after time.Duration) (*Reachability, DGIIState, error)
	// FindWaitingDocuments returns up to limit signed documents of env,
	// of every tenant, oldest first (by creation, then id), without their
	// Payload: the contingency job's drain order.
	FindWaitingDocuments(ctx context.Context, env Environment, limit int) ([]*Document, error)
	// CountWaitingDocuments counts the tenant's documents in env that have
	// not reached DGII (queued_for_signing or signed) and returns the
	// creation time of the oldest (nil when none).
	CountWaitingDocuments(ctx context.Context, tenantID string, env Environment) (int, *time.Time, error)
}

// ReachabilityResource is the public form of an environment's DGII state
// for one tenant (GET /{env}/estado-dgii).
type ReachabilityResource struct {
	State        DGIIState `json:"state"`
	Since        *string   `json:"since"`
	Until        *string   `json:"until"`
	FailingSince *string   `json:"failingSince"`
	LastFailure  *string   `json:"lastFailure"`
	LastSuccess  *string   `json:"lastSuccess"`
	// Waiting is how many of the tenant's documents have not reached DGII;
	// OldestWaiting the creation time of the oldest, and Deadline when it
	// must reach DGII if it was issued in contingency (ContingencyDeadline).
	Waiting       int     `json:"waiting"`
	OldestWaiting *string `json:"oldestWaiting"`
	Deadline      *string `json:"deadline"`
}

// Resource returns the public form of r, with the tenant's waiting count
// and oldest waiting document's creation time.
func (r *Reachability) Resource(waiting int, oldest *time.Time) ReachabilityResource {
	res := ReachabilityResource{
		State: r.State, Since: formatTimePtr(r.Since), Until: formatTimePtr(r.Until),
		FailingSince: formatTimePtr(r.FailingSince), LastFailure: formatTimePtr(r.LastFailure),
		LastSuccess: formatTimePtr(r.LastSuccess), Waiting: waiting, OldestWaiting: formatTimePtr(oldest),
	}
	if oldest != nil {
		d := oldest.Add(ContingencyDeadline)
		res.Deadline = formatTimePtr(&d)
	}
	return res
}

// formatTimePtr is FormatTime of t, nil for nil.
func formatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := FormatTime(*t)
	return &s
}
