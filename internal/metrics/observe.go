package metrics

import (
	"context"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/webhook"
)

// The stages of sello_document_latency_seconds.
const (
	StageSigned    = "signed"
	StageSubmitted = "submitted"
	StageVerdict   = "verdict"
	StageDelivered = "delivered"
)

// stageOf is the stage a document reaches with status, "" for none.
func stageOf(status sello.Status) string {
	switch status {
	case sello.StatusSigned:
		return StageSigned
	case sello.StatusSubmitted:
		return StageSubmitted
	case sello.StatusAccepted, sello.StatusAcceptedConditional, sello.StatusRejected:
		return StageVerdict
	}
	return ""
}

// DocumentCreated counts a document the API created in env: status
// queued_for_signing.
func (m *Metrics) DocumentCreated(env sello.Environment) {
	if m == nil {
		return
	}
	m.documents.WithLabelValues(string(env), string(sello.StatusQueuedForSigning)).Inc()
}

// DocumentChanged counts doc, which a transition has just moved to its
// status, and observes the time from its creation to the transition
// (doc.UpdatedAt) under the stage the status reaches, if any.
func (m *Metrics) DocumentChanged(doc *sello.Document) {
	if m == nil || doc == nil {
		return
	}
	env := string(doc.Environment)
	m.documents.WithLabelValues(env, string(doc.Status)).Inc()
	if stage := stageOf(doc.Status); stage != "" {
		m.documentLatency.WithLabelValues(env, stage).Observe(doc.UpdatedAt.Sub(doc.CreatedAt).Seconds())
	}
}

// The outcomes of sello_buyer_deliveries_total beside the delivery
// statuses delivered, failed and not_electronic.
const (
	// DeliveryNotReceived: the buyer's ARECF refused the e-CF (a failed
	// delivery with a CodigoMotivoNoRecibido).
	DeliveryNotReceived = "not_received"
	// DeliveryRetry: a run got no outcome; River runs it again later.
	DeliveryRetry = "retry"
)

// DeliveryRecorded counts the outcome a delivery run recorded on doc (the
// document after the change) and, when delivered, observes the delivered
// stage.
func (m *Metrics) DeliveryRecorded(doc *sello.Document) {
	if m == nil || doc == nil {
		return
	}
	outcome := doc.Delivery.Status
	switch outcome {
	case sello.DeliveryDelivered:
		m.documentLatency.WithLabelValues(string(doc.Environment), StageDelivered).Observe(doc.UpdatedAt.Sub(doc.CreatedAt).Seconds())
	case sello.DeliveryFailed:
		if doc.Delivery.Code != "" {
			outcome = DeliveryNotReceived
		}
	case sello.DeliveryNotElectronic:
	default:
		return
	}
	m.deliveries.WithLabelValues(outcome).Inc()
}

// DeliveryRetried counts a delivery run that got no outcome.
func (m *Metrics) DeliveryRetried() {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(DeliveryRetry).Inc()
}

// DGIICall observes a call to DGII (dgii.Config.OnCall).
func (m *Metrics) DGIICall(c dgii.Call) {
	if m == nil {
		return
	}
	m.dgiiDuration.WithLabelValues(string(c.Environment), c.Service, c.Outcome).Observe(c.Duration.Seconds())
}

// WebhookAttempt counts a webhook delivery attempt that failed with class,
// or succeeded ("").
func (m *Metrics) WebhookAttempt(class webhook.ErrorClass) {
	if m == nil {
		return
	}
	outcome := string(class)
	if class == "" {
		outcome = "success"
	}
	m.webhookAttempts.WithLabelValues(outcome).Inc()
}

// The receiver services (sello_receiver_requests_total's service).
const (
	ServiceSemilla               = "semilla"
	ServiceValidacionCertificado = "validacioncertificado"
	ServiceRecepcion             = "recepcion"
	ServiceAprobacionComercial   = "aprobacioncomercial"
)

// refusalReasons are the reasons of the refusals with an error: its code
// in lower case.
var refusalReasons = func() map[sello.ErrorCode]string {
	m := map[sello.ErrorCode]string{}
	for _, c := range sello.ErrorCodes {
		m[c] = strings.ToLower(string(c))
	}
	return m
}()

// ReceiverCalled counts a call to a receiver service and, when err is not
// nil, its refusal under err's code.
func (m *Metrics) ReceiverCalled(service string, err error) {
	if m == nil {
		return
	}
	m.receiverRequests.WithLabelValues(service).Inc()
	if err == nil {
		return
	}
	reason, ok := refusalReasons[sello.ErrorCodeOf(err)]
	if !ok {
		reason = refusalReasons[sello.CodeInternal]
	}
	m.receiverRefusals.WithLabelValues(service, reason).Inc()
}

// notReceived are the reasons of an e-CF refused by its acuse, by
// CodigoMotivoNoRecibido.
var notReceived = map[sello.ReceiptCode]string{
	sello.ReceiptSpecification: "not_received_specification",
	sello.ReceiptSignature:     "not_received_signature",
	sello.ReceiptDuplicate:     "not_received_duplicate",
	sello.ReceiptWrongBuyer:    "not_received_wrong_buyer",
}

// ReceiptRefused counts an e-CF the reception service answered with an
// ARECF that does not receive it, with code.
func (m *Metrics) ReceiptRefused(code sello.ReceiptCode) {
	if m == nil {
		return
	}
	reason, ok := notReceived[code]
	if !ok {
		reason = "not_received_other"
	}
	m.receiverRefusals.WithLabelValues(ServiceRecepcion, reason).Inc()
}

// Commit observes a COMMIT of the store that took took and committed
// group write transactions (sqlite.DB's and postgres.DB's OnCommit).
func (m *Metrics) Commit(group int, took time.Duration) {
	if m == nil {
		return
	}
	m.commitDuration.Observe(took.Seconds())
	m.commitGroup.Observe(float64(group))
}

// JobMiddleware is River's middleware that observes each run of a job
// (sello_job_duration_seconds) and its wait in the queue
// (sello_job_wait_seconds); none with a nil m.
func (m *Metrics) JobMiddleware() []rivertype.Middleware {
	if m == nil {
		return nil
	}
	return []rivertype.Middleware{&jobMiddleware{m: m}}
}

// jobMiddleware implements rivertype.WorkerMiddleware.
type jobMiddleware struct {
	river.MiddlewareDefaults
	m *Metrics
}

// Work implements rivertype.WorkerMiddleware.
func (j *jobMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	start := time.Now()
	took := start
	if job.AttemptedAt != nil {
		took = *job.AttemptedAt
	}
	j.m.jobWait.WithLabelValues(job.Kind).Observe(max(took.Sub(job.ScheduledAt), 0).Seconds())
	err := doInner(ctx)
	j.m.jobDuration.WithLabelValues(job.Kind, jobs.Outcome(err)).Observe(time.Since(start).Seconds())
	return err
}
