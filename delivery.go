package sello

import (
	"fmt"
	"time"
)

// Delivery of our documents to buyers (DESIGN §6, docs/lifecycle.md): once
// DGII accepts a document of a type exchanged between taxpayers, the
// transaction that records the verdict sets its delivery pending
// (DocumentChange.OpenDelivery), and the document's job, which recorded
// the verdict, goes on to deliver it: it finds the buyer in DGII's
// directory, posts the signed e-CF to the buyer's receiver and records the
// outcome with DeliveryOutcome: delivered (the buyer's ARECF says
// received), failed (the buyer did not receive it, or could not be reached
// for DeliveryJobMaxAttempts tries) or not_electronic (the buyer is not in
// the directory: the printed representation is how it gets the document).
// When that first try reaches no outcome, a DeliveryJob tries again.

// DeliveryJob tries again the delivery of an accepted document to the
// buyer's receiver (the worker package works it), once the document's job
// made the first try and reached no outcome; it is queued, on its own
// (LifecycleStore.QueueJobs), for the first retry (DeliveryRetryDelay(1)).
type DeliveryJob struct {
	TenantID    string      `json:"tenantId"`
	Environment Environment `json:"environment"`
	DocumentID  string      `json:"documentId"`
	// Tried is how many tries of the delivery were made before the job:
	// 1 when the document's job made the first. The job's run n is the
	// delivery's try Tried+n.
	Tried int `json:"tried,omitempty"`
}

// Kind implements Job (River's JobArgs).
func (DeliveryJob) Kind() string { return "sello.delivery" }

// DeliveryJobMaxAttempts bounds a delivery's failed tries, the document
// job's first included: with the worker's retry delays
// (DeliveryRetryDelay) the last comes about a day after the first, and its
// failure records the delivery failed.
const DeliveryJobMaxAttempts = 16

// MaxAttempts implements JobMaxAttempts: the tries left after Tried.
func (j DeliveryJob) MaxAttempts() int { return max(DeliveryJobMaxAttempts-j.Tried, 1) }

// RetryDelivery is the DeliveryJob of doc after its first try failed,
// scheduled at.
func RetryDelivery(doc *Document, at time.Time) ScheduledJob {
	return ScheduledJob{Job: DeliveryJob{TenantID: doc.TenantID, Environment: doc.Environment, DocumentID: doc.ID, Tried: 1}, At: at}
}

// deliveryRetryDelays are the waits after failed run 1, 2, …; the last
// repeats. Over DeliveryJobMaxAttempts−1 waits they add up to about 22 h.
var deliveryRetryDelays = []time.Duration{
	30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour,
}

// DeliveryRetryDelay is the wait after failed run n (1 for the first) of a
// delivery, before jitter.
func DeliveryRetryDelay(n int) time.Duration {
	return deliveryRetryDelays[min(max(n, 1), len(deliveryRetryDelays))-1]
}

// ARECF states and the codes of a buyer's "not received" (FACTS §2.3).
const (
	ARECFRecibido   = "0"
	ARECFNoRecibido = "1"
	// ARECFDuplicate is CodigoMotivoNoRecibido 3, Envío duplicado: the
	// buyer holds another document under the e-NCF.
	ARECFDuplicate = "3"
)

// ARECFReasons are the meanings of CodigoMotivoNoRecibido.
var ARECFReasons = map[string]string{
	"1": "Error de especificación",
	"2": "Error de Firma Digital",
	"3": "Envío duplicado",
	"4": "RNC Comprador no corresponde",
}

// deliveryOpen are the stored delivery statuses an outcome may replace:
// pending (opened at acceptance) and not_sent (documents accepted before
// delivery was built, should their job be queued again).
var deliveryOpen = []string{DeliveryPending, DeliveryNotSent}

// OpenDelivery makes ch, which moves doc to status ch.Status, also open
// doc's delivery when ch accepts it (accepted or accepted_conditional) and
// doc's type travels to an electronic buyer: the delivery becomes pending.
// No job is queued: the document's job, which records the verdict, goes on
// to deliver it (DeliveryDue), and it runs until it has (a run killed
// meanwhile is run again, and finds the delivery due).
func (ch *DocumentChange) OpenDelivery(doc *Document) {
	if !doc.Type.B2B() || (ch.Status != StatusAccepted && ch.Status != StatusAcceptedConditional) {
		return
	}
	ch.Delivery = &Delivery{Status: DeliveryPending}
}

// DeliveryDue reports whether doc's delivery is opened and not yet tried:
// accepted (or accepted_conditional) with its delivery pending. The
// document's job delivers such a document before it ends.
func (d *Document) DeliveryDue() bool {
	return (d.Status == StatusAccepted || d.Status == StatusAcceptedConditional) && d.Delivery.Status == DeliveryPending
}

// DeliveryOutcome is the change that records how a delivery ended: out is
// delivered, failed (Code the ARECF's CodigoMotivoNoRecibido when the buyer
// answered one, Reason what went wrong) or not_electronic; arecf is the
// buyer's signed acuse, nil when there is none. It applies only to an
// accepted document whose delivery is still open, so an outcome recorded
// is never replaced (UpdateDocument returns CONFLICT). Events:
// ecf.delivered, ecf.delivery_failed (severity error; warning for code 3,
// whose message says another document holds the e-NCF at the buyer);
// not_electronic writes none.
func DeliveryOutcome(doc *Document, out Delivery, arecf []byte) DocumentChange {
	ch := DocumentChange{
		From:         []Status{StatusAccepted, StatusAcceptedConditional},
		DeliveryFrom: deliveryOpen,
		Delivery:     &out,
		ARECF:        arecf,
		Reason:       "delivery: " + out.Status,
	}
	switch out.Status {
	case DeliveryDelivered:
		ch.EventType, ch.Message = EventECFDelivered, fmt.Sprintf("The buyer %s received %s.", doc.BuyerRNC, doc.ENCF)
	case DeliveryFailed:
		ch.EventType, ch.Severity, ch.Message = EventECFDeliveryFailed, "error", out.Reason
		if out.Code == ARECFDuplicate {
			ch.Severity = "warning"
			ch.Message = fmt.Sprintf("The buyer %s did not take %s: another document holds that e-NCF at the buyer (ARECF CodigoMotivoNoRecibido 3, Envío duplicado). "+
				"A Sello buyer answers so only when DGII confirmed that other document; ask the buyer which document it holds and DGII (consultaestado) which one it accepted.",
				doc.BuyerRNC, doc.ENCF)
		}
	}
	return ch
}

// NotReceivedReason is the reason of a delivery the buyer answered with an
// ARECF "no recibido" of code.
func NotReceivedReason(buyerRNC, code string) string {
	meaning := ARECFReasons[code]
	if meaning == "" {
		meaning = "unknown code"
	}
	return fmt.Sprintf("The buyer %s did not receive the e-CF: ARECF CodigoMotivoNoRecibido %s (%s).", buyerRNC, code, meaning)
}

// DocumentARECFNotFound is the NOT_FOUND error of a document that has no
// acuse de recibo from its buyer.
func DocumentARECFNotFound(id string) error {
	return Errorf(CodeNotFound, "Document %q has no acuse de recibo from its buyer.", id)
}
