package worker_test

import (
	"bytes"
	"context"
	"crypto/x509/pkix"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/worker"
	"github.com/sello-do/sello/xmldsig"
)

// deliveryTest is a tenant with a certificate, a worker whose DGII and
// buyers are a simulator over HTTP, and its job runner, started.
type deliveryTest struct {
	*hookTest
	sim    *dgiisim.Simulator
	url    string // the simulator's
	signer *xmldsig.Signer
	// receiverAuths counts the tokens the simulated receivers were asked
	// for (validacioncertificado).
	receiverAuths *atomic.Int64
}

// mustDeliveryTest starts a simulator that signs its acuses and a worker
// with short delivery retries; opts are the webhook clients' options (the
// loopback allowance the simulator needs); each of sim changes the
// simulator's configuration (its directory's other receivers).
func mustDeliveryTest(t *testing.T, st storetest.Store, opts webhook.Options, sim ...func(*dgiisim.Config)) *deliveryTest {
	t.Helper()
	return mustDeliveryTestConfig(t, st, worker.Config{Webhooks: opts, DeliveryDelay: func(int) time.Duration { return 10 * time.Millisecond }}, sim...)
}

// mustDeliveryTestConfig is mustDeliveryTest with the worker's
// configuration cfg (its DGII is the simulator's).
func mustDeliveryTestConfig(t *testing.T, st storetest.Store, cfg worker.Config, sim ...func(*dgiisim.Config)) *deliveryTest {
	t.Helper()
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Comprador simulado"}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	simCfg := dgiisim.Config{Verify: xmldsig.Verify, Sign: (&xmldsig.Signer{Key: key, Cert: cert}).Sign}
	for _, f := range sim {
		f(&simCfg)
	}
	s := dgiisim.New(simCfg)
	auths := &atomic.Int64{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(strings.ToLower(r.URL.Path), "/emisorreceptor/fe/autenticacion/api/validacioncertificado") {
			auths.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	cfg.DGII = dgii.New(dgii.Config{URLs: dgii.URLs{ECF: ts.URL}})
	h := mustHookTest(t, st, cfg)
	signer := h.mustCertificate(t, "Emisor de prueba")
	storetest.MustAddSequence(t, st, h.tenant.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)
	h.start(t)
	return &deliveryTest{hookTest: h, sim: s, url: ts.URL, signer: signer, receiverAuths: auths}
}

var (
	rncEmisorRE    = regexp.MustCompile(`<RNCEmisor>[^<]*</RNCEmisor>`)
	rncCompradorRE = regexp.MustCompile(`<RNCComprador>[^<]*</RNCComprador>`)
	encfRE         = regexp.MustCompile(`<eNCF>[^<]*</eNCF>`)
)

// accepted creates an E31 to buyer, signs the golden E31 as it (the
// tenant's RNC, the e-NCF, the buyer) and takes it to accepted with the
// worker's verdict change, which opens its delivery, as a run of the
// document's job killed right after the verdict's commit leaves it; then
// the document's job runs again, as River's rescue runs it, and delivers.
func (d *deliveryTest) accepted(t *testing.T, buyer string) *sello.Document {
	t.Helper()
	doc := storetest.MustCreateDocument(t, d.st, sello.DocumentDraft{
		TenantID: d.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
		Prepare: func(e sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			return &sello.PreparedDocument{Payload: []byte(`{}`), Total: "1180.00", BuyerRNC: buyer, IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}}, nil
		},
	})
	golden, err := os.ReadFile(filepath.Join("..", "ecf", "testdata", "golden", "E31.xml"))
	if err != nil {
		t.Fatal(err)
	}
	x := rncEmisorRE.ReplaceAll(golden, []byte("<RNCEmisor>"+d.tenant.RNC+"</RNCEmisor>"))
	x = rncCompradorRE.ReplaceAll(x, []byte("<RNCComprador>"+buyer+"</RNCComprador>"))
	x = encfRE.ReplaceAll(x, []byte("<eNCF>"+doc.ENCF+"</eNCF>"))
	signed, err := d.signer.Sign(x)
	if err != nil {
		t.Fatal(err)
	}
	// The document's own job cannot sign its payload and would run again
	// only after River's retry delay: it is cancelled, and the rescued
	// run below takes its place.
	d.cancelDocumentJob(t, doc)
	// One change from queued to accepted: the document's job must find
	// it signed or submitted at no point, or it would send it to DGII and
	// race these changes.
	ch := sello.DocumentChange{
		From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusAccepted,
		SignedXML: signed, TrackID: "track-" + doc.ID, EventType: sello.EventECFAccepted,
	}
	ch.OpenDelivery(doc)
	doc, err = d.st.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID, ch)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.st.QueueJobs(t.Context(), sello.NewDocumentJob(doc)); err != nil {
		t.Fatal(err)
	}
	return doc
}

// cancelDocumentJob cancels doc's DocumentJob and waits until River has
// finalized it.
func (d *deliveryTest) cancelDocumentJob(t *testing.T, doc *sello.Document) {
	t.Helper()
	c, ok := d.runner.(interface {
		jobLister
		JobCancel(ctx context.Context, id int64) (*rivertype.JobRow, error)
		JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	})
	if !ok {
		t.Fatalf("runner %T cannot cancel jobs", d.runner)
	}
	res, err := c.JobList(t.Context(), river.NewJobListParams().Kinds(sello.DocumentJob{}.Kind()).First(10_000))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Jobs {
		var a sello.DocumentJob
		if json.Unmarshal(j.EncodedArgs, &a) != nil || a.DocumentID != doc.ID {
			continue
		}
		if _, err := c.JobCancel(t.Context(), j.ID); err != nil {
			t.Fatal(err)
		}
		if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
			j, err := c.JobGet(t.Context(), j.ID)
			return err == nil && j.FinalizedAt != nil
		}) {
			t.Fatalf("document job %d of %s not finalized after 20 s", j.ID, doc.ENCF)
		}
	}
}

// deliveryJobs lists doc's DeliveryJobs, finished or not.
func (d *deliveryTest) deliveryJobs(t *testing.T, doc *sello.Document) []*rivertype.JobRow {
	t.Helper()
	res, err := d.runner.(jobLister).JobList(t.Context(), river.NewJobListParams().Kinds(sello.DeliveryJob{}.Kind()).First(10_000))
	if err != nil {
		t.Fatal(err)
	}
	var out []*rivertype.JobRow
	for _, j := range res.Jobs {
		var a sello.DeliveryJob
		if json.Unmarshal(j.EncodedArgs, &a) == nil && a.DocumentID == doc.ID {
			out = append(out, j)
		}
	}
	return out
}

// delivered waits (20 s at most) for the document's delivery outcome.
func (d *deliveryTest) delivered(t *testing.T, doc *sello.Document) *sello.Document {
	t.Helper()
	var got *sello.Document
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		var err error
		if got, err = d.st.FindDocumentByID(t.Context(), doc.TenantID, doc.Environment, doc.ID); err != nil {
			t.Fatal(err)
		}
		return got.Delivery.Status != sello.DeliveryPending
	}) {
		t.Fatalf("document %s: delivery still pending after 20 s", doc.ENCF)
	}
	return got
}

// receipt is what the simulated receivers got of doc, nil if nothing.
func (d *deliveryTest) receipt(doc *sello.Document) *dgiisim.Receipt {
	for _, r := range d.sim.Receipts() {
		if r.RNCEmisor == d.tenant.RNC && r.ENCF == doc.ENCF {
			return &r
		}
	}
	return nil
}

// lastEvent is the document's last event, once the feed lists one of
// type typ (see storetest.WaitEvents).
func (d *deliveryTest) lastEvent(t *testing.T, doc *sello.Document, typ sello.EventType) *sello.Event {
	t.Helper()
	var last *sello.Event
	storetest.WaitEvents(t, d.st, doc.TenantID, doc.Environment, sello.EventFilter{}, func(evs []*sello.Event) bool {
		last = nil
		seen := false
		for _, ev := range evs {
			if ev.Document != nil && ev.Document.ID == doc.ID {
				last = ev
				seen = seen || ev.Type == typ
			}
		}
		return seen
	})
	return last
}

func TestDelivery(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		d := mustDeliveryTest(t, st, webhook.Options{AllowLoopback: true})
		for _, tc := range []struct {
			name, buyer string
			want        sello.Delivery
			refused     int // the 503s the receiver answered first
			event       sello.EventType
			severity    string // the event's, "" for any
		}{
			{"Authenticated", dgiisim.RNCDGIITest, sello.Delivery{Status: sello.DeliveryDelivered}, 0, sello.EventECFDelivered, ""},
			{"NoAuthentication", dgiisim.RNCDirectoryNoAuth, sello.Delivery{Status: sello.DeliveryDelivered}, 0, sello.EventECFDelivered, ""},
			{"ReceiverDownThenBack", dgiisim.RNCReceiverDown, sello.Delivery{Status: sello.DeliveryDelivered}, dgiisim.ReceiverDownPosts, sello.EventECFDelivered, ""},
			{"NotReceived", "999000021", sello.Delivery{Status: sello.DeliveryFailed, Code: "1",
				Reason: "The buyer 999000021 did not receive the e-CF: ARECF CodigoMotivoNoRecibido 1 (Error de especificación)."}, 0, sello.EventECFDeliveryFailed, ""},
			// Code 3: the buyer holds another document under the e-NCF.
			// Not delivered: failed, with a warning saying so.
			{"NotReceivedDuplicate", "999000023", sello.Delivery{Status: sello.DeliveryFailed, Code: "3",
				Reason: "The buyer 999000023 did not receive the e-CF: ARECF CodigoMotivoNoRecibido 3 (Envío duplicado)."}, 0, sello.EventECFDeliveryFailed, "warning"},
			{"NotReceivedWrongBuyer", "999000024", sello.Delivery{Status: sello.DeliveryFailed, Code: "4",
				Reason: "The buyer 999000024 did not receive the e-CF: ARECF CodigoMotivoNoRecibido 4 (RNC Comprador no corresponde)."}, 0, sello.EventECFDeliveryFailed, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				doc := d.accepted(t, tc.buyer)
				got := d.delivered(t, doc)
				if got.Delivery != tc.want {
					t.Fatalf("delivery: got %+v, want %+v", got.Delivery, tc.want)
				}
				if r := got.Resource(); !reflect.DeepEqual(r.Delivery, tc.want.Resource()) {
					t.Errorf("resource delivery: got %+v, want %+v", r.Delivery, tc.want)
				}
				rc := d.receipt(doc)
				if rc == nil || rc.Posts != 1 || rc.Refused != tc.refused {
					t.Fatalf("receipt %+v: want one post answered after %d refused", rc, tc.refused)
				}
				arecf, err := st.FindDocumentARECF(t.Context(), doc.TenantID, doc.Environment, doc.ID)
				if err != nil || !bytes.Equal(arecf, rc.ARECF) {
					t.Errorf("stored ARECF: %v; want the receiver's, byte for byte", err)
				}
				ev := d.lastEvent(t, doc, tc.event)
				if ev == nil || ev.Type != tc.event {
					t.Fatalf("last event: got %+v, want %s", ev, tc.event)
				}
				if tc.severity != "" && ev.Data.Severity != tc.severity {
					t.Errorf("last event's severity: got %q, want %q", ev.Data.Severity, tc.severity)
				}
				if tc.want.Code == "3" && !strings.Contains(ev.Data.Message, "another document holds that e-NCF at the buyer") {
					t.Errorf("last event's message: got %q, want it to say another document holds the e-NCF at the buyer", ev.Data.Message)
				}
			})
		}

		t.Run("NotElectronic", func(t *testing.T) {
			doc := d.accepted(t, "101010101")
			if got := d.delivered(t, doc); got.Delivery != (sello.Delivery{Status: sello.DeliveryNotElectronic}) {
				t.Fatalf("delivery: got %+v, want not_electronic", got.Delivery)
			}
			if rc := d.receipt(doc); rc != nil {
				t.Errorf("a receiver got the e-CF of a buyer not in the directory: %+v", rc)
			}
			if ev := d.lastEvent(t, doc, sello.EventECFAccepted); ev == nil || ev.Type != sello.EventECFAccepted {
				t.Errorf("last event: got %+v, want none after ecf.accepted", ev)
			}
		})

		t.Run("NeverSentTwice", func(t *testing.T) {
			doc := d.accepted(t, dgiisim.RNCDirectoryNoAuth)
			d.delivered(t, doc)
			// The delivery's job queued again (River delivers at least once)
			// finds the outcome and sends nothing.
			if _, err := st.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID, sello.DocumentChange{
				Jobs: []sello.Job{sello.DeliveryJob{TenantID: doc.TenantID, Environment: doc.Environment, DocumentID: doc.ID}},
			}); err != nil {
				t.Fatal(err)
			}
			d.waitDeliveryJobsDone(t)
			if rc := d.receipt(doc); rc == nil || rc.Posts != 1 {
				t.Fatalf("receipt %+v: want exactly one post", rc)
			}
		})
	})
}

// TestDeliveryTokenKept: deliveries to a buyer that requires
// authentication authenticate once, not once each: the worker keeps the
// buyer's token (dgii.Receptor) from one delivery to the next.
func TestDeliveryTokenKept(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		d := mustDeliveryTest(t, st, webhook.Options{AllowLoopback: true})
		var docs []*sello.Document
		for range 5 {
			docs = append(docs, d.accepted(t, dgiisim.RNCDGIITest))
		}
		for _, doc := range docs {
			if got := d.delivered(t, doc); got.Delivery.Status != sello.DeliveryDelivered {
				t.Fatalf("%s: delivery %+v, want delivered", doc.ENCF, got.Delivery)
			}
		}
		if got := d.receiverAuths.Load(); got != 1 {
			t.Fatalf("the buyer's receiver authenticated the tenant %d times for %d deliveries, want once", got, len(docs))
		}
	})
}

// waitDeliveryJobsDone waits (20 s at most) until every delivery job has
// ended for good.
func (d *deliveryTest) waitDeliveryJobsDone(t *testing.T) {
	t.Helper()
	d.waitKindDone(t, sello.DeliveryJob{}.Kind())
}

func TestDeliveryBlocked(t *testing.T) {
	// Without the loopback allowance the simulator's receivers, on
	// 127.0.0.1, are refused by the SSRF guard: failed at once, no retry.
	d := mustDeliveryTest(t, sqlitetest.MustOpen(t), webhook.Options{})
	doc := d.accepted(t, dgiisim.RNCDirectoryNoAuth)
	got := d.delivered(t, doc)
	if got.Delivery.Status != sello.DeliveryFailed || !strings.Contains(got.Delivery.Reason, "blocked: 127.0.0.1 is a loopback address") {
		t.Fatalf("delivery: got %+v, want failed, blocked", got.Delivery)
	}
	if rc := d.receipt(doc); rc != nil {
		t.Errorf("the receiver got the e-CF: %+v", rc)
	}
}

// TestSimulatorARECFValidates checks the acuses the simulator's receivers
// sign against DGII's XSD with xmllint, received and not received.
func TestSimulatorARECFValidates(t *testing.T) {
	xmllint := oracle.Require(t, "xmllint")
	d := mustDeliveryTest(t, sqlitetest.MustOpen(t), webhook.Options{AllowLoopback: true})
	for _, buyer := range []string{dgiisim.RNCDirectoryNoAuth, "999000023"} {
		doc := d.accepted(t, buyer)
		d.delivered(t, doc)
		rc := d.receipt(doc)
		if rc == nil {
			t.Fatalf("no receipt for buyer %s", buyer)
		}
		file := filepath.Join(t.TempDir(), "arecf.xml")
		os.WriteFile(file, rc.ARECF, 0o600)
		if out, err := exec.Command(xmllint, "--noout", "--schema", oracle.XSD(t, "ARECF.xsd"), file).CombinedOutput(); err != nil {
			t.Fatalf("xmllint (buyer %s): %v\n%s\n%s", buyer, err, out, rc.ARECF)
		}
	}
}

// waitKindDone waits (20 s at most) until every job of kind has ended for
// good (River finalized it).
func (h *hookTest) waitKindDone(tb testing.TB, kind string) {
	tb.Helper()
	l, ok := h.runner.(jobLister)
	if !ok {
		tb.Fatalf("runner %T cannot list jobs", h.runner)
	}
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		res, err := l.JobList(tb.Context(), river.NewJobListParams().Kinds(kind).First(10_000))
		if err != nil {
			tb.Fatal(err)
		}
		for _, j := range res.Jobs {
			if j.FinalizedAt == nil {
				return false
			}
		}
		return true
	}) {
		tb.Fatalf("jobs of kind %s still running after 20 s", kind)
	}
}

// TestDeliveryInline: the document's job, having recorded the acceptance,
// delivers the document itself: no DeliveryJob when the buyer answers.
// When its first try reaches no outcome (a 503, a buyer slower than
// FirstDeliveryFor) it queues one DeliveryJob for the second try, at the
// first retry delay, with the tries left.
func TestDeliveryInline(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		t.Run("Delivered", func(t *testing.T) {
			d := mustDeliveryTest(t, st, webhook.Options{AllowLoopback: true})
			doc := d.accepted(t, dgiisim.RNCDirectoryNoAuth)
			if got := d.delivered(t, doc); got.Delivery.Status != sello.DeliveryDelivered {
				t.Fatalf("delivery: got %+v, want delivered", got.Delivery)
			}
			if rc := d.receipt(doc); rc == nil || rc.Posts != 1 {
				t.Fatalf("receipt %+v: want one post", rc)
			}
			if jobs := d.deliveryJobs(t, doc); len(jobs) != 0 {
				t.Fatalf("%d delivery jobs, want none: the document's job delivered", len(jobs))
			}
		})

		slowRNC := "999000077"
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		t.Cleanup(slow.Close)
		for _, tc := range []struct{ name, buyer string }{
			{"Refused", dgiisim.RNCReceiverDown},
			{"Slow", slowRNC},
		} {
			t.Run(tc.name, func(t *testing.T) {
				const delay = time.Hour
				d := mustDeliveryTestConfig(t, st, worker.Config{
					Webhooks:         webhook.Options{AllowLoopback: true},
					DeliveryDelay:    func(n int) time.Duration { return time.Duration(n) * delay },
					FirstDeliveryFor: 300 * time.Millisecond,
				}, func(c *dgiisim.Config) {
					c.Receivers = func(env sello.Environment, rnc string) (string, string, bool) {
						return "COMPRADOR LENTO SRL", slow.URL, rnc == slowRNC
					}
				})
				start := time.Now()
				doc := d.accepted(t, tc.buyer)
				var jobs []*rivertype.JobRow
				if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
					jobs = d.deliveryJobs(t, doc)
					return len(jobs) > 0
				}) {
					t.Fatal("no delivery job after 20 s")
				}
				if took := time.Since(start); tc.name == "Slow" && took > 5*time.Second {
					t.Errorf("the first try held the document's job %s, want about FirstDeliveryFor", took)
				}
				// The document's job has ended: no second job comes.
				d.waitKindDone(t, sello.DocumentJob{}.Kind())
				if jobs = d.deliveryJobs(t, doc); len(jobs) != 1 {
					t.Fatalf("%d delivery jobs, want 1", len(jobs))
				}
				j := jobs[0]
				var a sello.DeliveryJob
				if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
					t.Fatal(err)
				}
				want := sello.DeliveryJob{TenantID: doc.TenantID, Environment: doc.Environment, DocumentID: doc.ID, Tried: 1}
				if a != want || j.MaxAttempts != sello.DeliveryJobMaxAttempts-1 || j.State != rivertype.JobStateScheduled {
					t.Errorf("delivery job %+v (%s, %d attempts): want %+v, scheduled, %d attempts", a, j.State, j.MaxAttempts, want, sello.DeliveryJobMaxAttempts-1)
				}
				// DeliveryDelay(1) after the first try, ±20%.
				if lo, hi := start.Add(delay*8/10), time.Now().Add(delay*12/10); j.ScheduledAt.Before(lo) || j.ScheduledAt.After(hi) {
					t.Errorf("delivery job scheduled at %s, want between %s and %s", j.ScheduledAt, lo, hi)
				}
				got, err := st.FindDocumentByID(t.Context(), doc.TenantID, doc.Environment, doc.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Delivery != (sello.Delivery{Status: sello.DeliveryPending}) {
					t.Errorf("delivery %+v, want pending", got.Delivery)
				}
			})
		}
	})
}
