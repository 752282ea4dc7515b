package sello

import (
	"context"
	"fmt"
	"time"
)

// DGII's confirmation of received documents (docs/receptor.md,
// "Confirmation with DGII"). What a tenant's receiver can check of an e-CF
// ends at its signature and signer; whether the document is the one the
// issuer sent to DGII, and whether DGII accepted it, only DGII knows. So
// every document stored is queued for confirmation in the transaction that
// stores it, and the job runners turn each entry of that queue into an
// InboundConfirmJob within InboundConfirmSweep (QueueInboundConfirmJobs);
// the job asks DGII's consultaestado (FACTS §1.6: the issuer's
// RNC, the e-NCF, the tenant as buyer and the security code, the first six
// characters of the document's SignatureValue) with the tenant's own DGII
// session (the receiver asks as the buyer's delegate), and records the
// answer with ApplyInboundDGII.
//
// Two different documents under one issuer and e-NCF are both kept until
// DGII accepts one of them (the e-NCF is spent once): that one becomes
// accepted and the others refuted. Once one is accepted, another document
// under the e-NCF is refused at reception (ARECF code 3).

// The states of DGII's confirmation of an inbound document
// (InboundDGII.Status).
const (
	// DGIIPending: DGII has not answered yet.
	DGIIPending = "pending"
	// DGIIAccepted: DGII accepted this document (consultaestado Aceptado,
	// or Aceptado Condicional).
	DGIIAccepted = "accepted"
	// DGIIRejected: DGII rejected this document (Rechazado): it is null
	// for tax purposes.
	DGIIRejected = "rejected"
	// DGIINotFound: DGII has no accepted e-CF of this issuer, e-NCF, buyer
	// and security code (No encontrado); asked again until
	// InboundConfirmFor after the receipt.
	DGIINotFound = "not_found"
	// DGIIRefuted: DGII accepted another document under this issuer and
	// e-NCF: this one is not the issuer's.
	DGIIRefuted = "refuted"
)

// InboundConfirmFor is how long after a receipt the confirmation job keeps
// asking DGII while it answers not found (or does not answer): past it the
// job stops, the status stays not_found (or pending) and an
// inbound.dgii_refuted event says so. An issuer may deliver before DGII's
// verdict, and DGII validates in seconds; three days leave room for a long
// outage on either side.
const InboundConfirmFor = 72 * time.Hour

// InboundConfirmDelay is how long the confirmation job waits before asking
// DGII again about a document received age ago: every 5 s in the first
// minute, every 30 s to 10 minutes, every 5 minutes to the first hour, every
// 30 minutes to the sixth, then every 2 hours until InboundConfirmFor (about
// 80 questions in all).
func InboundConfirmDelay(age time.Duration) time.Duration {
	switch {
	case age < time.Minute:
		return 5 * time.Second
	case age < 10*time.Minute:
		return 30 * time.Second
	case age < time.Hour:
		return 5 * time.Minute
	case age < 6*time.Hour:
		return 30 * time.Minute
	}
	return 2 * time.Hour
}

// InboundDGII is DGII's confirmation of an inbound document as recorded.
type InboundDGII struct {
	// Status is DGIIPending, DGIIAccepted, DGIIRejected, DGIINotFound or
	// DGIIRefuted.
	Status string
	// CheckedAt is when DGII last answered about the document, nil before
	// its first answer.
	CheckedAt *time.Time
	// Codigo is consultaestado's codigo in that answer (0 No encontrado, 1
	// Aceptado, 2 Rechazado, 4 Aceptado Condicional), nil before it.
	Codigo *int
	// Mensaje says what the status means: DGII's estado, or why Sello
	// refuted the document or stopped asking.
	Mensaje string
}

// Final reports whether the status will not change: accepted, rejected or
// refuted.
func (g *InboundDGII) Final() bool {
	return g != nil && (g.Status == DGIIAccepted || g.Status == DGIIRejected || g.Status == DGIIRefuted)
}

// ParseDGIIState returns the confirmation state named s (pending,
// accepted, rejected, not_found, refuted). Returns INVALID_REQUEST.
func ParseDGIIState(s string) (string, error) {
	switch s {
	case DGIIPending, DGIIAccepted, DGIIRejected, DGIINotFound, DGIIRefuted:
		return s, nil
	}
	return "", Errorf(CodeInvalidRequest, "Unknown DGII confirmation state %q: use pending, accepted, rejected, not_found or refuted.", s)
}

// InboundDGIIResource is the public form of an InboundDGII.
type InboundDGIIResource struct {
	Status    string  `json:"status"`
	CheckedAt *string `json:"checkedAt"`
	Codigo    *int    `json:"codigo"`
	Mensaje   *string `json:"mensaje"`
}

// Resource returns the public form of g, nil when g is nil (a document
// received before Sello asked DGII).
func (g *InboundDGII) Resource() *InboundDGIIResource {
	if g == nil {
		return nil
	}
	r := &InboundDGIIResource{Status: g.Status, Codigo: g.Codigo, Mensaje: nullable(g.Mensaje)}
	if g.CheckedAt != nil {
		r.CheckedAt = nullable(FormatTime(*g.CheckedAt))
	}
	return r
}

// CheckConfirmed refuses to act on d (approve or reject it commercially)
// unless DGII accepted it: DGII takes approvals only of e-CFs it accepted
// (FACTS §1.8), and a document DGII has not confirmed may be a forgery.
// A document received before Sello asked DGII (DGII nil) passes. Returns
// VALIDATION_FAILED naming why.
func (d *InboundDocument) CheckConfirmed() error {
	g := d.DGII
	if g == nil || g.Status == DGIIAccepted {
		return nil
	}
	var why Text
	switch g.Status {
	case DGIIPending:
		why = Textf("DGII has not confirmed it yet (dgii.status pending): Sello is asking; try again once dgii.status is accepted.")
	case DGIINotFound:
		why = Textf("DGII does not know it (dgii.status not_found): it has no accepted e-CF %s of RNC %s for RNC %s with security code %s. Sello keeps asking for %s after the receipt; try again once dgii.status is accepted.",
			d.ENCF, d.IssuerRNC, d.BuyerRNC, d.SecurityCode, InboundConfirmFor)
	case DGIIRejected:
		why = Textf("DGII rejected it (dgii.status rejected): it is null for tax purposes.")
	case DGIIRefuted:
		why = Textf("DGII accepted another document under %s of RNC %s (dgii.status refuted): this one is not the issuer's.", d.ENCF, d.IssuerRNC)
	default:
		why = Textf("DGII has not accepted it (dgii.status %s).", g.Status)
	}
	var p Problems
	p.AddText("inboundDocumentId", why)
	return p.Errorf(CodeValidationFailed, "Inbound document %s cannot be approved or rejected: %s", d.ID, why)
}

// InboundConfirmJob asks DGII to confirm an inbound document (the worker
// package works it). StoreInboundDocument queues the document for it, and
// QueueInboundConfirmJobs inserts it.
type InboundConfirmJob struct {
	TenantID          string      `json:"tenantId"`
	Environment       Environment `json:"environment"`
	InboundDocumentID string      `json:"inboundDocumentId"`
}

// Kind implements Job (River's JobArgs).
func (InboundConfirmJob) Kind() string { return "sello.inbound_confirm" }

// The confirmation queue. A receipt does not insert its InboundConfirmJob:
// River's insert (a JSON batch and river_job's indexes) was the largest part
// of a receipt after the acuse's signature. It writes a small entry in the
// store's confirmation queue instead, in the transaction that stores the
// document, so a stored document is queued however the process dies after
// the commit. Every job runner moves the queue into River's
// (QueueInboundConfirmJobs) when it starts and every InboundConfirmSweep
// after, in batches of InboundConfirmBatch, each batch in one transaction
// that deletes the entries and inserts their jobs: an entry becomes one job,
// whatever number of runners sweep at once, and none is lost.
const (
	// InboundConfirmSweep is how often a job runner moves the confirmation
	// queue into jobs: DGII is first asked about a document at most this
	// long after its receipt, well within InboundConfirmDelay's first wait.
	InboundConfirmSweep = time.Second
	// InboundConfirmBatch is how many entries one transaction of the sweep
	// moves: on SQLite's single writer, receipts wait for at most one
	// batch.
	InboundConfirmBatch = 200
)

// InboundConfirmQueueTx is what QueueInboundConfirmJobs asks of the
// transaction that moves the confirmation queue into jobs: the statements,
// no rules.
type InboundConfirmQueueTx interface {
	// TakeInboundConfirms deletes up to limit entries of the confirmation
	// queue, oldest first, that no other transaction holds, and returns
	// their jobs.
	TakeInboundConfirms(ctx context.Context, limit int) ([]InboundConfirmJob, error)
	// InsertJobs inserts jobs, to run once the transaction commits.
	InsertJobs(ctx context.Context, jobs []Job) error
}

// QueueInboundConfirmJobs moves up to limit (at least 1) entries of the
// confirmation queue into their InboundConfirmJobs, in the one transaction
// inTx runs (the store's), and returns how many. An entry is deleted in the
// transaction that inserts its job, so each becomes one job: a concurrent
// sweep skips or waits for the entries this one holds, and finds them gone
// once it commits. Stores implement InboundStore.QueueInboundConfirmJobs
// with it.
func QueueInboundConfirmJobs(ctx context.Context, limit int, inTx func(fn func(tx InboundConfirmQueueTx) error) error) (int, error) {
	n := 0
	err := inTx(func(tx InboundConfirmQueueTx) error {
		taken, err := tx.TakeInboundConfirms(ctx, max(limit, 1))
		if err != nil {
			return err
		}
		js := make([]Job, len(taken))
		for i, j := range taken {
			js[i] = j
		}
		n = len(js)
		return tx.InsertJobs(ctx, js)
	})
	if err != nil {
		return 0, fmt.Errorf("queue inbound confirmations: %w", err)
	}
	return n, nil
}

// InboundDGIIAnswer is what the confirmation job learnt: consultaestado's
// Codigo and Estado, or, with GiveUp, that it stops asking.
type InboundDGIIAnswer struct {
	Codigo int
	Estado string
	// GiveUp records that the job stops asking (InboundConfirmFor passed):
	// the status stays and an inbound.dgii_refuted event says so.
	GiveUp bool
}

// consultaestado's codigos (FACTS §1.6).
const (
	estadoNoEncontrado = 0
	estadoAceptado     = 1
	estadoRechazado    = 2
	estadoCondicional  = 4
)

// ApplyInboundDGII records ans about d at now, accepted being the document
// DGII accepted under d's issuer and e-NCF (nil when none), and reports
// whether d changed, d's events, and whether the other documents under the
// e-NCF whose confirmation is not final are to be refuted
// (RecordInboundDGII refutes them, with an event each):
//
//   - Aceptado (or Aceptado Condicional): d is accepted
//     (inbound.dgii_confirmed) and every other one not final is refuted
//     (inbound.dgii_refuted); should another be accepted already, d is
//     refuted instead (DGII spends an e-NCF once);
//   - Rechazado: rejected (inbound.dgii_refuted);
//   - No encontrado (or any other codigo): refuted when another document
//     under the e-NCF is accepted, else not_found (no event);
//   - GiveUp: the status stays, with an inbound.dgii_refuted warning.
//
// A document whose status is final (Final) does not change.
func ApplyInboundDGII(d *InboundDocument, accepted *AcceptedInbound, ans InboundDGIIAnswer, now time.Time) (changed bool, events []*Event, refute bool) {
	if d.DGII == nil {
		d.DGII = &InboundDGII{Status: DGIIPending}
	}
	if d.DGII.Final() {
		return false, nil, false
	}
	if ans.GiveUp {
		d.DGII.Mensaje = fmt.Sprintf("DGII did not confirm the document within %s of its receipt: Sello stopped asking.", InboundConfirmFor)
		d.UpdatedAt = now
		return true, []*Event{d.dgiiEvent(EventInboundDGIIRefuted, "warning",
			fmt.Sprintf("DGII has not confirmed %s of RNC %s (security code %s) within %s of its receipt (dgii.status %s): Sello stopped asking. Do not approve it or pay it before the issuer shows DGII accepted it.",
				d.ENCF, d.IssuerRNC, d.SecurityCode, InboundConfirmFor, d.DGII.Status), now)}, false
	}
	codigo := ans.Codigo
	d.DGII.CheckedAt, d.DGII.Codigo, d.DGII.Mensaje = &now, &codigo, ans.Estado
	d.UpdatedAt = now
	switch {
	case (codigo == estadoAceptado || codigo == estadoCondicional) && accepted == nil:
		d.DGII.Status = DGIIAccepted
		events = append(events, d.dgiiEvent(EventInboundDGIIConfirmed, "info",
			fmt.Sprintf("DGII confirmed %s of RNC %s: it accepted the document with security code %s.", d.ENCF, d.IssuerRNC, d.SecurityCode), now))
		refute = true
	case codigo == estadoRechazado:
		d.DGII.Status = DGIIRejected
		events = append(events, d.dgiiEvent(EventInboundDGIIRefuted, "error",
			fmt.Sprintf("DGII rejected %s of RNC %s (security code %s): it is null for tax purposes.", d.ENCF, d.IssuerRNC, d.SecurityCode), now))
	case accepted != nil:
		d.DGII.Status, d.DGII.Mensaje = DGIIRefuted, refutedBy(accepted)
		events = append(events, d.dgiiEvent(EventInboundDGIIRefuted, "warning", refutedMessage(d, accepted), now))
	default:
		d.DGII.Status = DGIINotFound
		if codigo != estadoNoEncontrado {
			d.DGII.Status = DGIIPending // En Proceso, or a codigo DGII does not document here
		}
	}
	return true, events, refute
}

// Accepted names d, accepted, as the other documents under its e-NCF are
// refuted by.
func (d *InboundDocument) Accepted() *AcceptedInbound {
	return &AcceptedInbound{ID: d.ID, SecurityCode: d.SecurityCode, ReceivedAt: d.ReceivedAt}
}

// RefutedEvent is the inbound.dgii_refuted event of d, refuted at now
// because DGII accepted genuine.
func (d *InboundDocument) RefutedEvent(genuine *AcceptedInbound, now time.Time) *Event {
	return d.dgiiEvent(EventInboundDGIIRefuted, "warning", refutedMessage(d, genuine), now)
}

// refutedBy is the mensaje of a document refuted because DGII accepted
// genuine.
func refutedBy(genuine *AcceptedInbound) string {
	return fmt.Sprintf("DGII accepted another document under this e-NCF: %s, security code %s.", genuine.ID, genuine.SecurityCode)
}

// refutedMessage is the event message of d, refuted by genuine.
func refutedMessage(d *InboundDocument, genuine *AcceptedInbound) string {
	return fmt.Sprintf("%s of RNC %s (security code %s) is not the issuer's: DGII accepted another document under that e-NCF, inbound document %s (security code %s).",
		d.ENCF, d.IssuerRNC, d.SecurityCode, genuine.ID, genuine.SecurityCode)
}

// dgiiEvent is d's event of type t about its confirmation: the payload
// has its securityCode and dgii too.
func (d *InboundDocument) dgiiEvent(t EventType, severity, msg string, now time.Time) *Event {
	ev := d.event(t, severity, msg, now)
	ev.Data.Payload["securityCode"] = d.SecurityCode
	ev.Data.Payload["dgii"] = d.DGII.Resource()
	return ev
}

// InboundDGIITx is what RecordInboundDGII asks of the transaction that
// records DGII's answer: the statements, no rules.
type InboundDGIITx interface {
	// LockInboundENCF is InboundTx's: receipts and confirmations of one
	// e-NCF take turns.
	LockInboundENCF(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) error
	// InboundDGII returns the DGII confirmation and UpdatedAt of the
	// tenant's document id in env as they are now. Returns NOT_FOUND.
	InboundDGII(ctx context.Context, tenantID string, env Environment, id string) (*InboundDGII, time.Time, error)
	// AcceptedInbound returns the document DGII accepted under issuerRNC
	// and encf, nil when none, through an index.
	AcceptedInbound(ctx context.Context, tenantID string, env Environment, issuerRNC, encf string) (*AcceptedInbound, error)
	// UpdateInboundDGII writes d's DGII and UpdatedAt.
	UpdateInboundDGII(ctx context.Context, d *InboundDocument) error
	// RefuteInbound marks refuted, with mensaje and UpdatedAt now, every
	// document under genuine's issuer and e-NCF but genuine whose
	// confirmation is not final (pending, not_found, or none: received
	// before Sello asked DGII), in one statement that reads no XML, and
	// returns them after, without their XML and acuse, oldest received
	// first.
	RefuteInbound(ctx context.Context, genuine *InboundDocument, mensaje string, now time.Time) ([]*InboundDocument, error)
	// InsertEvent writes ev to the outbox with its webhook deliveries.
	InsertEvent(ctx context.Context, ev *Event) error
	// AddIssuerReceipts is InboundTx's: an accepted document leaves its
	// issuer's count.
	AddIssuerReceipts(ctx context.Context, tenantID string, env Environment, issuerRNC string, hour time.Time, n int) error
}

// RecordInboundDGII records ans about the tenant's inbound document id in
// env (ApplyInboundDGII, beside the document DGII accepted under its issuer
// and e-NCF) in the one transaction inTx runs (the store's; now is the time
// read in it), with the events it calls for, and returns the document
// after. When the document becomes accepted, the other documents under
// its e-NCF whose confirmation is not final are refuted in one statement
// (RefuteInbound), each with its inbound.dgii_refuted event: as many as
// ReceiverLimits.ENCFQuota lets the e-NCF hold, plus those received
// before its window; and the document leaves its issuer's count of the
// hour it was received in (IssuerQuota counts the documents DGII has not
// accepted). No other document's XML is read. Stores implement
// InboundStore.RecordInboundDGII with it; find reads the document before
// the transaction. Returns NOT_FOUND.
func RecordInboundDGII(ctx context.Context, tenantID string, env Environment, id string, ans InboundDGIIAnswer,
	find func(ctx context.Context, tenantID string, env Environment, id string) (*InboundDocument, error),
	inTx func(fn func(tx InboundDGIITx, now time.Time) error) error) (*InboundDocument, error) {
	found, err := find(ctx, tenantID, env, id)
	if err != nil {
		return nil, err
	}
	var after *InboundDocument
	err = inTx(func(tx InboundDGIITx, now time.Time) error {
		d := *found
		if err := tx.LockInboundENCF(ctx, tenantID, env, d.IssuerRNC, d.ENCF); err != nil {
			return err
		}
		// The confirmation as it is now, under the lock.
		g, updated, err := tx.InboundDGII(ctx, tenantID, env, id)
		if err != nil {
			return err
		}
		d.DGII, d.UpdatedAt, after = g, updated, &d
		accepted, err := tx.AcceptedInbound(ctx, tenantID, env, d.IssuerRNC, d.ENCF)
		if err != nil {
			return err
		}
		changed, events, refute := ApplyInboundDGII(&d, accepted, ans, now)
		if !changed {
			return nil
		}
		if err := tx.UpdateInboundDGII(ctx, &d); err != nil {
			return err
		}
		if refute {
			refuted, err := tx.RefuteInbound(ctx, &d, refutedBy(d.Accepted()), now)
			if err != nil {
				return err
			}
			for _, o := range refuted {
				events = append(events, o.RefutedEvent(d.Accepted(), now))
			}
		}
		for _, ev := range events {
			if err := tx.InsertEvent(ctx, ev); err != nil {
				return err
			}
		}
		if d.DGII.Status == DGIIAccepted {
			// Only a change makes it accepted (a final status does not
			// change): it leaves its issuer's count once. Last, as in
			// StoreInboundDocument.
			return tx.AddIssuerReceipts(ctx, tenantID, env, d.IssuerRNC, IssuerQuotaHour(d.ReceivedAt), -1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return after, nil
}
