package worker_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/worker"
	"github.com/sello-do/sello/xmldsig"
)

// voidTest is a worker with a tenant, its certificate and a range of E31
// 1–1000, and the simulator over HTTP, counting the voids it is sent.
type voidTest struct {
	*hookTest
	sim    *dgiisim.Simulator
	url    string
	signer *xmldsig.Signer
	voids  atomic.Int64 // anularrango requests
	all    atomic.Int64 // every request
	// lose makes the next anularrango reach the simulator and its answer
	// be lost (replaced by a body that is not DGII's).
	lose atomic.Bool
	mu   sync.Mutex
	sent [][]byte // the ANECF of each anularrango request
}

func mustVoidTest(t *testing.T) *voidTest {
	t.Helper()
	st := sqlitetest.MustOpen(t)
	v := &voidTest{sim: dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify})}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.all.Add(1)
		if !strings.HasSuffix(strings.ToLower(r.URL.Path), "/anularrango") {
			v.sim.ServeHTTP(w, r)
			return
		}
		v.voids.Add(1)
		body, _ := io.ReadAll(r.Body)
		peek := r.Clone(r.Context())
		peek.Body = io.NopCloser(bytes.NewReader(body))
		if f, _, err := peek.FormFile("xml"); err == nil {
			b, _ := io.ReadAll(f)
			v.mu.Lock()
			v.sent = append(v.sent, b)
			v.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if v.lose.CompareAndSwap(true, false) {
			v.sim.ServeHTTP(httptest.NewRecorder(), r)
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "<html>proxy error</html>")
			return
		}
		v.sim.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	v.url = ts.URL
	v.hookTest = mustHookTest(t, st, worker.Config{
		// DGII down: the client's retries of the seed wait 1 ms, not 250 ms
		// doubling, so a void's every attempt fits in a test.
		DGII:          dgii.New(dgii.Config{URLs: dgii.URLs{ECF: ts.URL}, Backoff: func(int) time.Duration { return time.Millisecond }}),
		DeliveryDelay: func(int) time.Duration { return 10 * time.Millisecond },
	})
	v.signer = v.mustCertificate(t, "Emisor de prueba")
	storetest.MustAddSequence(t, st, v.tenant.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)
	v.start(t)
	return v
}

// void creates a void of ranges (from, to of E31).
func (v *voidTest) void(t *testing.T, ranges ...[2]int64) *sello.Void {
	t.Helper()
	var req sello.VoidRequest
	for _, r := range ranges {
		req.Ranges = append(req.Ranges, sello.VoidRangeRequest{Type: "31", From: r[0], To: r[1]})
	}
	return storetest.MustCreateVoid(t, v.st, sello.VoidDraft{TenantID: v.tenant.ID, Environment: sello.EnvTest, Request: req})
}

// done waits (20 s at most) for the void's outcome.
func (v *voidTest) done(t *testing.T, void *sello.Void) *sello.Void {
	t.Helper()
	var got *sello.Void
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		var err error
		if got, err = v.st.FindVoid(t.Context(), void.TenantID, void.Environment, void.ID); err != nil {
			t.Fatal(err)
		}
		return got.State != sello.VoidPending
	}) {
		t.Fatalf("void %s still pending after 20 s: %+v", void.ID, got)
	}
	return got
}

// sendOutside sends DGII an E31 of the tenant's that Sello never numbered
// (another system of the taxpayer's): DGII counts its number used.
func (v *voidTest) sendOutside(t *testing.T, n int64) {
	t.Helper()
	golden, err := os.ReadFile(filepath.Join("..", "ecf", "testdata", "golden", "E31.xml"))
	if err != nil {
		t.Fatal(err)
	}
	encf := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}.String()
	x := rncEmisorRE.ReplaceAll(golden, []byte("<RNCEmisor>"+v.tenant.RNC+"</RNCEmisor>"))
	x = encfRE.ReplaceAll(x, []byte("<eNCF>"+encf+"</eNCF>"))
	signed, err := v.signer.Sign(x)
	if err != nil {
		t.Fatal(err)
	}
	sess := dgii.New(dgii.Config{URLs: dgii.URLs{ECF: v.url}}).Session(sello.EnvTest, v.tenant.RNC, func(_ context.Context, b []byte) ([]byte, error) { return v.signer.Sign(b) })
	if _, err := sess.SendECF(t.Context(), encf, signed); err != nil {
		t.Fatal(err)
	}
}

func TestVoidJob(t *testing.T) {
	t.Run("Accepted", func(t *testing.T) {
		v := mustVoidTest(t)
		got := v.done(t, v.void(t, [2]int64{10, 19}, [2]int64{30, 30}))
		if got.State != sello.VoidAccepted || got.DGII == nil || got.DGII.Codigo == nil || *got.DGII.Codigo != 1 || len(got.DGII.Mensajes) != 1 {
			t.Fatalf("void: got %s %+v, want accepted with DGII's answer", got.State, got.DGII)
		}
		cert, err := xmldsig.Verify(got.ANECF)
		if err != nil || !cert.Equal(v.signer.Cert) {
			t.Fatalf("stored ANECF: signature %v", err)
		}
		x := string(got.ANECF)
		for _, want := range []string{"<RncEmisor>" + v.tenant.RNC + "</RncEmisor>", "<CantidadeNCFAnulados>11</CantidadeNCFAnulados>",
			"<SecuenciaeNCFDesde>E310000000010</SecuenciaeNCFDesde>", "<SecuenciaeNCFHasta>E310000000030</SecuenciaeNCFHasta>"} {
			if !strings.Contains(x, want) {
				t.Errorf("ANECF lacks %s:\n%s", want, x)
			}
		}
		if n := v.voids.Load(); n != 1 {
			t.Errorf("anularrango requests: got %d, want 1", n)
		}
		evs, err := v.st.ListEvents(t.Context(), v.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventVoidUpdated, Limit: 10})
		if err != nil || len(evs) != 1 || evs[0].Data.Payload["voidId"] != got.ID {
			t.Fatalf("void.updated: got %+v, %v", evs, err)
		}
	})
	t.Run("PartiallyAccepted", func(t *testing.T) {
		v := mustVoidTest(t)
		v.sendOutside(t, 50)
		got := v.done(t, v.void(t, [2]int64{45, 49}, [2]int64{50, 55}))
		if got.State != sello.VoidPartiallyAccepted || got.DGII == nil || len(got.DGII.Mensajes) != 2 ||
			!strings.Contains(got.DGII.Mensajes[0].Valor, "Con excepción de las secuencias del detalle") ||
			!strings.Contains(got.DGII.Mensajes[1].Valor, "han sido utilizadas") {
			t.Fatalf("void: got %s %+v, want partially_accepted naming E310000000050", got.State, got.DGII)
		}
		// The numbers DGII did not void stay out of numbering too.
		for range 44 {
			storetest.MustCreateDocument(t, v.st, sello.DocumentDraft{TenantID: v.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, Prepare: prepareAny})
		}
		if d := storetest.MustCreateDocument(t, v.st, sello.DocumentDraft{TenantID: v.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, Prepare: prepareAny}); d.ENCF != "E310000000056" {
			t.Errorf("45th document: got %s, want E310000000056", d.ENCF)
		}
	})
	t.Run("Rejected", func(t *testing.T) {
		v := mustVoidTest(t)
		v.sendOutside(t, 50)
		got := v.done(t, v.void(t, [2]int64{50, 50}))
		if got.State != sello.VoidRejected || got.DGII == nil || got.DGII.Codigo == nil || *got.DGII.Codigo != 3 || got.DGII.Estado != "Anulación rechazada" ||
			!strings.Contains(got.DGII.String(), "han sido utilizadas") {
			t.Fatalf("void: got %s %+v, want rejected with DGII's messages", got.State, got.DGII)
		}
	})
	t.Run("AnswerLostThenResent", func(t *testing.T) {
		v := mustVoidTest(t)
		v.lose.Store(true)
		got := v.done(t, v.void(t, [2]int64{7, 9}))
		if got.State != sello.VoidAccepted {
			t.Fatalf("void: got %s %+v, want accepted from the resend's answer", got.State, got.DGII)
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		if len(v.sent) != 2 || !bytes.Equal(v.sent[0], v.sent[1]) || !bytes.Equal(v.sent[1], got.ANECF) {
			t.Fatalf("anularrango got %d ANECFs, want the stored one twice, byte for byte", len(v.sent))
		}
	})
	t.Run("DownThenBack", func(t *testing.T) {
		v := mustVoidTest(t)
		v.sim.SetDown(true)
		void := v.void(t, [2]int64{1, 5})
		// More requests than one run makes: a run found DGII down (503) and
		// the job ran again.
		if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
			got, err := v.st.FindVoid(t.Context(), void.TenantID, void.Environment, void.ID)
			return err == nil && got.State == sello.VoidPending && got.ANECF != nil && v.all.Load() > 1+dgii.DefaultRetries
		}) {
			t.Fatalf("the void job did not retry against the simulator down")
		}
		v.sim.SetDown(false)
		if got := v.done(t, void); got.State != sello.VoidAccepted {
			t.Fatalf("void: got %s %+v, want accepted once DGII is back", got.State, got.DGII)
		}
	})
}

// TestVoidJobDownForGood: DGII down through every attempt leaves the void
// failed, naming DGII's last answer, with its signed ANECF kept; its
// numbers stay out of numbering (a failed send may have reached DGII).
func TestVoidJobDownForGood(t *testing.T) {
	v := mustVoidTest(t)
	v.sim.SetDown(true)
	void := v.void(t, [2]int64{1, 5})
	got := v.done(t, void)
	if got.State != sello.VoidFailed || !strings.Contains(got.FailureReason, "503") || got.ANECF == nil {
		t.Fatalf("void: got %s (%q, ANECF %d bytes), want failed naming DGII's 503, the ANECF kept", got.State, got.FailureReason, len(got.ANECF))
	}
	if runs := v.all.Load(); runs < int64(sello.VoidJobMaxAttempts) {
		t.Errorf("DGII got %d requests; want at least one per attempt (%d)", runs, sello.VoidJobMaxAttempts)
	}
	// Once DGII is back, the same numbers may be voided again.
	v.sim.SetDown(false)
	if again := v.done(t, v.void(t, [2]int64{1, 5})); again.State != sello.VoidAccepted {
		t.Fatalf("the void sent again: %s %+v, want accepted", again.State, again.DGII)
	}
}

// TestVoidJobNoCertificate: a tenant without a valid certificate in the
// environment gets its void failed at the first run, saying what to do,
// and DGII is not called.
func TestVoidJobNoCertificate(t *testing.T) {
	v := mustVoidTest(t)
	other := storetest.MustCreateTenant(t, v.st)
	storetest.MustAddSequence(t, v.st, other.ID, sello.EnvTest, "31", 1, 100)
	void := storetest.MustCreateVoid(t, v.st, sello.VoidDraft{TenantID: other.ID, Environment: sello.EnvTest,
		Request: sello.VoidRequest{Ranges: []sello.VoidRangeRequest{{Type: "31", From: 1, To: 5}}}})
	got := v.done(t, void)
	if got.State != sello.VoidFailed || !strings.Contains(got.FailureReason, "No valid certificate for TesteCF to sign the ANECF") || got.ANECF != nil {
		t.Fatalf("void: got %s (%q), want failed for want of a certificate, nothing signed", got.State, got.FailureReason)
	}
	if n := v.voids.Load(); n != 0 {
		t.Errorf("DGII got %d voids", n)
	}
}

// prepareAny prepares any e-NCF as a minimal document.
func prepareAny(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) {
	return &sello.PreparedDocument{Payload: []byte(`{}`), Total: "1.00", BuyerRNC: "131880681", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}}, nil
}
