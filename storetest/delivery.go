package storetest

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/sello-do/sello"
)

// arecfXML is a buyer's acuse as the suite stores it, byte for byte.
var arecfXML = []byte("<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<ARECF><DetalleAcusedeRecibo><Estado>0</Estado></DetalleAcusedeRecibo>\t</ARECF>\n")

// newAcceptedDoc creates a document of type typ in a fresh tenant and takes
// it to accepted with the verdict change a worker makes, which opens its
// delivery.
func newAcceptedDoc(t *testing.T, e env, typ sello.DocumentType) *sello.Document {
	t.Helper()
	tn := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, typ, 1, 100)
	doc := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, typ))
	doc = mustUpdate(t, e.s, doc, signChange())
	doc = mustUpdate(t, e.s, doc, sello.DocumentChange{From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: "track-" + doc.ID})
	ch := sello.DocumentChange{From: []sello.Status{sello.StatusSubmitted}, Status: sello.StatusAccepted, EventType: sello.EventECFAccepted}
	ch.OpenDelivery(doc)
	return mustUpdate(t, e.s, doc, ch)
}

func testDelivery(t *testing.T, open Open) {
	t.Run("Opened", func(t *testing.T) {
		// The verdict opens the delivery and queues no job: the
		// document's job delivers it.
		e := newEnv(t, open)
		doc := newAcceptedDoc(t, e, sello.TypeCreditoFiscal)
		if got, want := doc.Delivery, (sello.Delivery{Status: sello.DeliveryPending}); got != want {
			t.Errorf("delivery after acceptance: got %+v, want %+v", got, want)
		}
		if !doc.DeliveryDue() {
			t.Errorf("delivery of %+v not due after acceptance", doc)
		}
		if got := doc.Resource().Delivery.Status; got != sello.DeliveryPending {
			t.Errorf("resource delivery: got %q, want pending", got)
		}
		if jobs := mustJobsOf(t, newRunner(t, e.s, nil), sello.DeliveryJob{}.Kind()); len(jobs) != 0 {
			t.Errorf("delivery jobs after acceptance: got %d, want none", len(jobs))
		}
	})

	t.Run("Retry", func(t *testing.T) {
		// The first try failed: QueueJobs queues the DeliveryJob for
		// the second, scheduled, with the tries left.
		e := newEnv(t, open)
		doc := newAcceptedDoc(t, e, sello.TypeCreditoFiscal)
		at := time.Now().Add(30 * time.Second).Truncate(time.Millisecond)
		if err := e.s.QueueJobs(t.Context(), sello.RetryDelivery(doc, at)); err != nil {
			t.Fatalf("QueueJobs: %v", err)
		}
		r := newRunner(t, e.s, nil)
		jobs := mustListJobs(t, r, sello.DeliveryJob{}.Kind()).Jobs
		if len(jobs) != 1 {
			t.Fatalf("delivery jobs: got %d, want 1", len(jobs))
		}
		var got sello.DeliveryJob
		if err := json.Unmarshal(jobs[0].EncodedArgs, &got); err != nil {
			t.Fatal(err)
		}
		want := sello.DeliveryJob{TenantID: doc.TenantID, Environment: doc.Environment, DocumentID: doc.ID, Tried: 1}
		if j := jobs[0]; got != want || j.MaxAttempts != sello.DeliveryJobMaxAttempts-1 ||
			j.State != rivertype.JobStateScheduled || !j.ScheduledAt.Equal(at) {
			t.Errorf("delivery job %+v (%s at %s, %d attempts): want %+v, scheduled at %s, %d attempts",
				got, j.State, j.ScheduledAt, j.MaxAttempts, want, at, sello.DeliveryJobMaxAttempts-1)
		}
	})

	t.Run("NotB2B", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newAcceptedDoc(t, e, sello.TypeConsumo)
		if doc.Delivery.Status != sello.DeliveryNotApplicable {
			t.Errorf("delivery of an E32: got %q, want not_applicable", doc.Delivery.Status)
		}
		if jobs := mustJobsOf(t, newRunner(t, e.s, nil), sello.DeliveryJob{}.Kind()); len(jobs) != 0 {
			t.Errorf("delivery jobs of an E32: got %d, want none", len(jobs))
		}
	})

	t.Run("Delivered", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		doc := newAcceptedDoc(t, e, sello.TypeCreditoFiscal)
		_, err := e.s.FindDocumentARECF(ctx, doc.TenantID, doc.Environment, doc.ID)
		wantError(t, err, sello.CodeNotFound, "no acuse de recibo")

		out := sello.Delivery{Status: sello.DeliveryDelivered}
		got := mustUpdate(t, e.s, doc, sello.DeliveryOutcome(doc, out, arecfXML))
		if got.Delivery != out || got.Status != sello.StatusAccepted {
			t.Errorf("after the outcome: got %s, %+v; want accepted, %+v", got.Status, got.Delivery, out)
		}
		deepEqual(t, "FindDocumentByID", mustDocumentByID(t, e.s, doc).Delivery, out)
		xml, err := e.s.FindDocumentARECF(ctx, doc.TenantID, doc.Environment, doc.ID)
		if err != nil || !bytes.Equal(xml, arecfXML) {
			t.Errorf("FindDocumentARECF: got %q, %v; want %q byte for byte", xml, err, arecfXML)
		}
		evs := WaitEvents(t, e.s, doc.TenantID, doc.Environment, sello.EventFilter{}, WithType(sello.EventECFDelivered))
		last := evs[len(evs)-1]
		if last.Type != sello.EventECFDelivered || last.Document.Status != sello.StatusAccepted || last.Data.Severity != "info" {
			t.Errorf("last event: got %s (%s, %s), want ecf.delivered of an accepted document", last.Type, last.Document.Status, last.Data.Severity)
		}

		// An outcome recorded is never replaced: nothing is delivered twice.
		_, err = e.s.UpdateDocument(ctx, doc.TenantID, doc.Environment, doc.ID,
			sello.DeliveryOutcome(doc, sello.Delivery{Status: sello.DeliveryFailed, Reason: "late"}, nil))
		wantError(t, err, sello.CodeConflict, "Delivery of document "+doc.ENCF+" is delivered, not pending or not_sent.")
		deepEqual(t, "delivery after the refused change", mustDocumentByID(t, e.s, doc).Delivery, out)
	})

	t.Run("Failed", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newAcceptedDoc(t, e, sello.TypeNotaCredito)
		out := sello.Delivery{Status: sello.DeliveryFailed, Code: "1", Reason: sello.NotReceivedReason("101000002", "1")}
		got := mustUpdate(t, e.s, doc, sello.DeliveryOutcome(doc, out, arecfXML))
		deepEqual(t, "delivery", got.Delivery, out)
		deepEqual(t, "resource delivery", got.Resource().Delivery, out.Resource())
		deepEqual(t, "stored delivery", mustDocumentByID(t, e.s, doc).Delivery, out)
		evs := WaitEvents(t, e.s, doc.TenantID, doc.Environment, sello.EventFilter{}, WithType(sello.EventECFDeliveryFailed))
		last := evs[len(evs)-1]
		if last.Type != sello.EventECFDeliveryFailed || last.Data.Severity != "error" || last.Data.Message != out.Reason {
			t.Errorf("last event: got %s (%s, %q), want ecf.delivery_failed, error, %q", last.Type, last.Data.Severity, last.Data.Message, out.Reason)
		}
	})

	t.Run("NotElectronic", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newAcceptedDoc(t, e, sello.TypeCreditoFiscal)
		before := len(WaitEvents(t, e.s, doc.TenantID, doc.Environment, sello.EventFilter{}, WithType(sello.EventECFAccepted)))
		out := sello.Delivery{Status: sello.DeliveryNotElectronic}
		got := mustUpdate(t, e.s, doc, sello.DeliveryOutcome(doc, out, nil))
		deepEqual(t, "resource delivery", got.Resource().Delivery, out.Resource())
		if after := len(mustEvents(t, e.s, doc.TenantID, doc.Environment, before)); after != before {
			t.Errorf("events: got %d new, want none for not_electronic", after-before)
		}
		_, err := e.s.FindDocumentARECF(t.Context(), doc.TenantID, doc.Environment, doc.ID)
		wantError(t, err, sello.CodeNotFound)
	})

	t.Run("ErrNotAccepted", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		_, err := e.s.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID,
			sello.DeliveryOutcome(doc, sello.Delivery{Status: sello.DeliveryDelivered}, arecfXML))
		wantError(t, err, sello.CodeConflict, "is queued_for_signing, not accepted or accepted_conditional")
		if got := mustDocumentByID(t, e.s, doc).Delivery.Status; got != sello.DeliveryNotSent {
			t.Errorf("delivery after the refused change: got %q, want not_sent", got)
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newAcceptedDoc(t, e, sello.TypeCreditoFiscal)
		mustUpdate(t, e.s, doc, sello.DeliveryOutcome(doc, sello.Delivery{Status: sello.DeliveryDelivered}, arecfXML))
		other := MustCreateTenant(t, e.s)
		_, err := e.s.FindDocumentARECF(t.Context(), other.ID, doc.Environment, doc.ID)
		wantError(t, err, sello.CodeNotFound)
		_, err = e.s.FindDocumentARECF(t.Context(), doc.TenantID, sello.EnvProd, doc.ID)
		wantError(t, err, sello.CodeNotFound)
	})
}
