package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/xmldsig"
)

// mustSimulator starts a DGII simulator in the test process (so it outlives
// the servers it serves) with real signature verification, its buyers'
// acuses signed.
func mustSimulator(tb testing.TB) (*dgiisim.Simulator, string) {
	tb.Helper()
	sign, err := simulatorSigner()
	if err != nil {
		tb.Fatal(err)
	}
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, ProcessingDelay: 100 * time.Millisecond})
	ts := httptest.NewServer(sim)
	tb.Cleanup(ts.Close)
	return sim, ts.URL
}

// mustLifecycleServer is a demo server against a simulator of the test.
func mustLifecycleServer(tb testing.TB, extra ...string) (*testServer, *dgiisim.Simulator) {
	tb.Helper()
	sim, url := mustSimulator(tb)
	return MustRunServer(tb, append([]string{"--dgii-url", url, "--dgii-timeout", "2s"}, extra...)...), sim
}

// waitFor polls a document until cond holds or 30 s pass.
func (s *testServer) waitFor(tb testing.TB, key, encf string, cond func(map[string]any) bool) map[string]any {
	tb.Helper()
	return s.waitForPath(tb, key, docsPath+"/"+encf, cond)
}

// waitForPath polls the document at path until cond holds or 30 s pass.
func (s *testServer) waitForPath(tb testing.TB, key, path string, cond func(map[string]any) bool) map[string]any {
	tb.Helper()
	var r *response
	var d map[string]any
	if !testwait.Within(30*time.Second, 20*time.Millisecond, func() bool {
		r = s.Do(tb, request{Method: "GET", Path: path, Key: key})
		if r.Status != http.StatusOK {
			return false
		}
		d = document(tb, r)
		return cond(d)
	}) {
		tb.Fatalf("%s: condition not met within 30 s; last %s", path, r.Body)
	}
	return d
}

// final waits for a final status.
func (s *testServer) final(tb testing.TB, key, encf string) map[string]any {
	tb.Helper()
	return s.waitFor(tb, key, encf, func(d map[string]any) bool { return sello.Status(d["status"].(string)).Final() })
}

// withBuyer sets the buyer's RNC (the simulator's outcome triggers).
func withBuyer(rnc string) func(map[string]any) {
	return func(ecf map[string]any) { apitest.Section(ecf, "Comprador")["RNCComprador"] = rnc }
}

func TestLifecycleAccepted(t *testing.T) {
	s, sim := mustLifecycleServer(t)
	key := s.Keys[sello.EnvTest]
	created := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()}))
	encf := created["encf"].(string)

	d := s.final(t, key, encf)
	if d["status"] != "accepted" {
		t.Fatalf("status %v, want accepted: %v", d["status"], d)
	}
	dg := d["dgii"].(map[string]any)
	if dg["codigo"] != float64(1) || dg["estado"] != "Aceptado" {
		t.Fatalf("dgii %v", dg)
	}
	code, _ := d["securityCode"].(string)
	if len(code) != 6 || d["trackId"] == nil || d["signedAt"] == nil {
		t.Fatalf("securityCode %q, trackId %v, signedAt %v", code, d["trackId"], d["signedAt"])
	}
	qr := d["qrUrl"].(string)
	if !strings.HasPrefix(qr, "https://ecf.dgii.gov.do/testecf/consultatimbre?") || !strings.Contains(qr, "encf="+encf) {
		t.Fatalf("qrUrl %q", qr)
	}

	t.Run("SentOnce", func(t *testing.T) {
		n := 0
		for _, snd := range sim.Sends() {
			if snd.ENCF == encf {
				n++
				if snd.TrackID != d["trackId"] {
					t.Errorf("DGII's trackId %s, document's %v", snd.TrackID, d["trackId"])
				}
			}
		}
		if n != 1 {
			t.Fatalf("DGII received %s %d times, want once", encf, n)
		}
	})

	t.Run("Events", func(t *testing.T) {
		// The buyer, DGII's test counterpart, is in the directory: the
		// document is delivered after its acceptance.
		s.waitFor(t, key, encf, func(d map[string]any) bool {
			return d["delivery"].(map[string]any)["status"] == sello.DeliveryDelivered
		})
		db := mustOpenStore(t, s)
		tenant, _ := db.FindTenantByRNC(t.Context(), demoRNC)
		events, err := db.ListEvents(t.Context(), tenant.ID, sello.EnvTest, sello.EventFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range events {
			if e.Document != nil && e.Document.ENCF == encf {
				got = append(got, string(e.Type)+":"+string(e.Document.Status))
			}
		}
		want := "ecf.queued:queued_for_signing ecf.signed:signed ecf.submitted:submitted ecf.accepted:accepted ecf.delivered:accepted"
		if strings.Join(got, " ") != want {
			t.Fatalf("events %v, want %s", got, want)
		}
		history, err := db.FindDocumentHistory(t.Context(), tenant.ID, sello.EnvTest, created["id"].(string))
		if err != nil {
			t.Fatal(err)
		}
		var statuses []string
		for _, h := range history {
			statuses = append(statuses, string(h.Status))
		}
		// The delivery's outcome is a change of the accepted document.
		if got := strings.Join(statuses, " "); got != "queued_for_signing signed submitted accepted accepted" {
			t.Fatalf("history %s", got)
		}
	})

	t.Run("XML", func(t *testing.T) {
		r := s.Do(t, request{Method: "GET", Path: docsPath + "/" + encf + "/xml", Key: key})
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/xml" {
			t.Fatalf("status %d, type %q", r.Status, r.Header.Get("Content-Type"))
		}
		dir := t.TempDir()
		file := filepath.Join(dir, encf+".xml")
		os.WriteFile(file, r.Body, 0o600)
		if out, err := exec.Command(oracle.Require(t, "xmllint"), "--noout", "--schema", oracle.XSD(t, "e-CF-31.xsd"), file).CombinedOutput(); err != nil {
			t.Fatalf("xmllint: %v\n%s", err, out)
		}
		m := regexp.MustCompile(`<X509Certificate>([^<]+)</X509Certificate>`).FindSubmatch(r.Body)
		der, _ := base64.StdEncoding.DecodeString(string(m[1]))
		pem := filepath.Join(dir, "cert.pem")
		os.WriteFile(pem, append(append([]byte("-----BEGIN CERTIFICATE-----\n"), []byte(base64.StdEncoding.EncodeToString(der))...), "\n-----END CERTIFICATE-----\n"...), 0o600)
		if out, err := exec.Command(oracle.Require(t, "xmlsec1"), "--verify", "--pubkey-cert-pem", pem, file).CombinedOutput(); err != nil {
			t.Fatalf("xmlsec1 does not verify the signed XML: %v\n%s", err, out)
		}
		sv := regexp.MustCompile(`<SignatureValue>([^<]+)</SignatureValue>`).FindSubmatch(r.Body)
		if got := strings.TrimSpace(string(sv[1]))[:6]; got != code {
			t.Fatalf("security code %q, SignatureValue starts %q", code, got)
		}
	})

	t.Run("PDF", func(t *testing.T) {
		r := s.Do(t, request{Method: "GET", Path: docsPath + "/" + encf + "/pdf", Key: key})
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("status %d, type %q", r.Status, r.Header.Get("Content-Type"))
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "doc.pdf")
		os.WriteFile(file, r.Body, 0o600)
		text, err := exec.Command(oracle.Require(t, "pdftotext"), "-layout", file, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Factura de Crédito Fiscal Electrónica", encf, code, "Cliente Ejemplo SRL", "1,180.00"} {
			if !strings.Contains(string(text), want) {
				t.Errorf("the PDF's text lacks %q", want)
			}
		}
		if err := exec.Command(oracle.Require(t, "pdftoppm"), "-r", "150", "-png", file, filepath.Join(dir, "page")).Run(); err != nil {
			t.Fatal(err)
		}
		pages, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
		out, err := exec.Command(oracle.Require(t, "zbarimg"), append([]string{"--raw", "-q"}, pages...)...).Output()
		if err != nil || strings.TrimSpace(string(out)) != qr {
			t.Fatalf("QR decodes to %q (%v), want %q", out, err, qr)
		}
	})
}

func TestLifecycleOutcomes(t *testing.T) {
	s, _ := mustLifecycleServer(t)
	key := s.Keys[sello.EnvTest]
	for _, tt := range []struct {
		name, buyer string
		status      string
		reusable    any
	}{
		{"Rejected", "999000002", "rejected", true},
		{"RejectedReusable", "999000003", "rejected", false},
		{"AcceptedConditional", "999000004", "accepted_conditional", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(tt.buyer))}))["encf"].(string)
			d := s.final(t, key, encf)
			if d["status"] != tt.status {
				t.Fatalf("status %v, want %s", d["status"], tt.status)
			}
			dg := d["dgii"].(map[string]any)
			if tt.reusable != nil && dg["secuenciaUtilizada"] != tt.reusable {
				t.Fatalf("secuenciaUtilizada %v, want %v", dg["secuenciaUtilizada"], tt.reusable)
			}
			if len(dg["mensajes"].([]any)) == 0 && tt.status != "accepted" {
				t.Fatalf("no DGII messages: %v", dg)
			}
		})
	}
}

// TestBuyerSideFields: a document's delivery and commercial approval
// through the whole lifecycle, end to end over HTTP with the simulator's
// buyers (the demo's loopback allowance lets the delivery reach them): an
// accepted type 31 is delivered to a buyer in DGII's directory, failed
// with the code of a buyer that does not receive it, not_electronic for a
// buyer not in the directory; a consumer invoice (32) and a rejected
// document are not_applicable; no document shows an approval.
func TestBuyerSideFields(t *testing.T) {
	s, sim := mustLifecycleServer(t)
	key := s.Keys[sello.EnvTest]
	consumo := func(ecf map[string]any) { apitest.IdDoc(ecf)["TipoeCF"] = "32" }
	for _, tt := range []struct {
		name         string
		body         []byte
		wantStatus   string
		wantDelivery map[string]any
		posts        int // the e-CF's posts to the buyer's receiver
	}{
		{"AcceptedCreditoFiscal", invoice(withBuyer(dgiisim.RNCDGIITest)), "accepted", map[string]any{"status": sello.DeliveryDelivered, "code": nil, "reason": nil}, 1},
		{"NotReceived", invoice(withBuyer("999000022")), "accepted", map[string]any{"status": sello.DeliveryFailed, "code": "2",
			"reason": "The buyer 999000022 did not receive the e-CF: ARECF CodigoMotivoNoRecibido 2 (Error de Firma Digital)."}, 1},
		{"NotElectronic", invoice(withBuyer("101010101")), "accepted", map[string]any{"status": sello.DeliveryNotElectronic, "code": nil, "reason": nil}, 0},
		{"AcceptedConsumo", invoice(consumo), "accepted", map[string]any{"status": sello.DeliveryNotApplicable, "code": nil, "reason": nil}, 0},
		{"Rejected", invoice(withBuyer("999000002")), "rejected", map[string]any{"status": sello.DeliveryNotApplicable, "code": nil, "reason": nil}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: tt.body})
			if r.Status != http.StatusAccepted {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
			encf := document(t, r)["encf"].(string)
			d := s.waitFor(t, key, encf, func(d map[string]any) bool {
				st := d["delivery"].(map[string]any)["status"]
				return sello.Status(d["status"].(string)).Final() && st != sello.DeliveryPending && st != sello.DeliveryNotSent
			})
			if d["status"] != tt.wantStatus {
				t.Fatalf("status %v, want %s", d["status"], tt.wantStatus)
			}
			if got := d["delivery"]; !reflect.DeepEqual(got, tt.wantDelivery) {
				t.Errorf("delivery %v, want %v", got, tt.wantDelivery)
			}
			if approval, ok := d["commercialApproval"]; !ok || approval != nil {
				t.Errorf("commercialApproval %v (present %v), want null", approval, ok)
			}
			posts := 0
			for _, rc := range sim.Receipts() {
				if rc.ENCF == encf {
					posts += rc.Posts
				}
			}
			if posts != tt.posts {
				t.Errorf("posts to the buyer's receiver: %d, want %d", posts, tt.posts)
			}
		})
	}
}

// TestLifecycleRFCE: a consumer invoice under DOP 250,000 goes to DGII as
// its RFCE summary, with a synchronous verdict and no trackId.
func TestLifecycleRFCE(t *testing.T) {
	s, sim := mustLifecycleServer(t)
	key := s.Keys[sello.EnvTest]
	body := invoice(func(ecf map[string]any) {
		apitest.IdDoc(ecf)["TipoeCF"] = "32"
		apitest.Section(ecf, "Comprador")["RNCComprador"] = "131880681"
	})
	r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body})
	if r.Status != http.StatusAccepted {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	encf := document(t, r)["encf"].(string)
	d := s.final(t, key, encf)
	if d["status"] != "accepted" || d["trackId"] != nil {
		t.Fatalf("status %v, trackId %v", d["status"], d["trackId"])
	}
	if qr := d["qrUrl"].(string); !strings.Contains(qr, "fc.dgii.gov.do/testecf/consultatimbrefc?") {
		t.Fatalf("qrUrl %q", qr)
	}
	for _, snd := range sim.Sends() {
		if snd.ENCF == encf && !snd.RFCE {
			t.Fatalf("the full e-CF went to recepción: %+v", snd)
		}
	}
}

// TestLifecycleDGIIDown: while DGII is down documents wait (signed, never
// failed) and go on when it returns.
func TestLifecycleDGIIDown(t *testing.T) {
	s, sim := mustLifecycleServer(t)
	key := s.Keys[sello.EnvTest]
	sim.SetDown(true)
	var encfs []string
	for range 3 {
		encfs = append(encfs, document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()}))["encf"].(string))
	}
	for _, e := range encfs {
		s.waitFor(t, key, e, func(d map[string]any) bool { return d["status"] == "signed" })
	}
	// Every document has tried DGII and was refused: its job waits (snoozed).
	if !testwait.Within(30*time.Second, 20*time.Millisecond, func() bool {
		jobs := documentJobs(t, s)
		for _, j := range jobs {
			if j.snoozes == 0 {
				return false
			}
		}
		return len(jobs) == len(encfs)
	}) {
		t.Fatalf("document jobs %+v: want each to have tried DGII and snoozed", documentJobs(t, s))
	}
	for _, e := range encfs {
		if d := document(t, s.Do(t, request{Method: "GET", Path: docsPath + "/" + e, Key: key})); d["status"] != "signed" {
			t.Fatalf("%s during the outage: %v", e, d["status"])
		}
	}
	sim.SetDown(false)
	for _, e := range encfs {
		if d := s.final(t, key, e); d["status"] != "accepted" {
			t.Fatalf("%s after the outage: %v", e, d["status"])
		}
	}
}

// TestLifecycleUncertainSend: DGII records the document but its answer never
// arrives; Sello asks DGII before sending again and follows the trackId it
// already has, so DGII receives the document once.
func TestLifecycleUncertainSend(t *testing.T) {
	// The send's answer is lost when Sello stops waiting for it.
	s, sim := mustLifecycleServer(t, "--dgii-timeout", "1s")
	key := s.Keys[sello.EnvTest]
	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer("999000007"))}))["encf"].(string)
	d := s.final(t, key, encf)
	if d["status"] != "accepted" {
		t.Fatalf("status %v", d["status"])
	}
	n := 0
	for _, snd := range sim.Sends() {
		if snd.ENCF == encf {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("DGII received %s %d times, want once", encf, n)
	}
}

// TestLifecycleNoCertificate: a tenant without a certificate gets failed
// documents that say what to do.
func TestLifecycleNoCertificate(t *testing.T) {
	s, _ := mustLifecycleServer(t)
	s.cli(t, "tenants", "create", "--rnc", "404040404", "--name", "Sin Firma SRL")
	s.cli(t, "sequences", "add", "--tenant", "404040404", "--env", "TesteCF", "--type", "31", "--from", "1", "--to", "10", "--expires", "31-12-2030")
	key := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", "404040404", "--env", "TesteCF", "--scopes", "ecf:create,ecf:read"))
	body := apitest.Invoice("404040404")
	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body}))["encf"].(string)
	d := s.final(t, key, encf)
	if d["status"] != "failed" || !strings.Contains(d["failureReason"].(string), "certificate") {
		t.Fatalf("status %v, reason %v", d["status"], d["failureReason"])
	}
	wantError(t, s.Do(t, request{Method: "GET", Path: docsPath + "/" + encf + "/xml", Key: key}), http.StatusNotFound, sello.CodeNotFound)

	// With a certificate, the next document is signed and accepted.
	if out := s.cli(t, "certificates", "generate", "--tenant", "404040404", "--env", "TesteCF"); len(strings.TrimSpace(out)) == 0 {
		t.Fatal("certificates generate printed nothing")
	}
	encf = document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body}))["encf"].(string)
	if d := s.final(t, key, encf); d["status"] != "accepted" {
		t.Fatalf("with a certificate: %v", d["status"])
	}
}

// mustCountedQueries serves a DGII simulator that keeps documents En
// Proceso for delay, and counts its verdict queries (consultaresultado):
// polls returns how many a trackId got.
func mustCountedQueries(t *testing.T, delay time.Duration) (url string, polls func(trackID string) int) {
	t.Helper()
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, ProcessingDelay: delay})
	var mu sync.Mutex
	counts := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(strings.ToLower(r.URL.Path), "consultaresultado") {
			mu.Lock()
			counts[r.URL.Query().Get("trackid")]++
			mu.Unlock()
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, func(trackID string) int {
		mu.Lock()
		defer mu.Unlock()
		return counts[trackID]
	}
}

// TestLifecycleVerdictHeld: while DGII validates, a document's job waits
// in process rather than snoozing (each document's job runs once), and once
// the worker has seen how long DGII takes it asks for the verdict when it
// is ready instead of on a short fixed step.
func TestLifecycleVerdictHeld(t *testing.T) {
	const delay = 600 * time.Millisecond // 3 queries a document on the fixed 250 ms step
	dgiiURL, polls := mustCountedQueries(t, delay)
	s := MustRunServer(t, "--dgii-url", dgiiURL, "--dgii-timeout", "2s")
	key := s.Keys[sello.EnvTest]
	post := func() string {
		return document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()}))["encf"].(string)
	}

	first := s.final(t, key, post()) // teaches the worker DGII's delay
	if n := polls(first["trackId"].(string)); n < 2 {
		t.Errorf("first document: %d queries; before any verdict is seen the first one should come too early", n)
	}
	var later []map[string]any
	for range 5 {
		later = append(later, s.final(t, key, post()))
	}
	for _, d := range later {
		if d["status"] != "accepted" {
			t.Fatalf("%s: status %v", d["encf"], d["status"])
		}
		if n := polls(d["trackId"].(string)); n > 2 {
			t.Errorf("%s: %d queries for its verdict, want at most 2 once DGII's delay is known", d["encf"], n)
		}
	}

	jobs := documentJobs(t, s)
	for _, j := range jobs {
		if j.attempt != 1 {
			t.Errorf("a document's job ran %d times, want once (no snooze while DGII validates)", j.attempt)
		}
	}
	if len(jobs) != 6 {
		t.Fatalf("%d document jobs, want 6", len(jobs))
	}
}

// TestLifecycleColdStartScout: documents sent together before the node has
// seen any verdict do not each ask DGII on the short step. The first one,
// the scout, does; the others wait for the delay it learns and then ask
// once, when their verdict is ready.
func TestLifecycleColdStartScout(t *testing.T) {
	const (
		delay = 600 * time.Millisecond // 3 queries a document on the fixed 250 ms step
		docs  = 12
	)
	dgiiURL, polls := mustCountedQueries(t, delay)
	s := MustRunServer(t, "--dgii-url", dgiiURL, "--dgii-timeout", "2s")
	key := s.Keys[sello.EnvTest]
	encfs := make([]string, docs)
	var wg sync.WaitGroup
	for i := range encfs {
		wg.Go(func() {
			encfs[i] = document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()}))["encf"].(string)
		})
	}
	wg.Wait()
	var counts []int
	total := 0
	for _, encf := range encfs {
		d := s.final(t, key, encf)
		if d["status"] != "accepted" {
			t.Fatalf("%s: status %v", encf, d["status"])
		}
		n := polls(d["trackId"].(string))
		counts = append(counts, n)
		total += n
	}
	slices.Sort(counts)
	// The scout asks 3 times (0.25, 0.5, 0.75 s); a document woken by what
	// it learned asks once, twice if its verdict came a little late.
	if counts[len(counts)-2] > 2 || total > 3+2*(docs-1) {
		t.Errorf("queries a document %v (%d in all); want one document (the scout) above 2", counts, total)
	}
}

// docJob is a document job's row in River's table.
type docJob struct {
	state   string
	attempt int
	snoozes int // the runs that ended waiting for DGII
}

// documentJobs reads the document jobs of s's SQLite store.
func documentJobs(tb testing.TB, s *testServer) []docJob {
	tb.Helper()
	db, err := sql.Open("sqlite", filepath.Join(s.Data, "sello.db"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT state, attempt, coalesce(json_extract(metadata, '$.snoozes'), 0) FROM river_job WHERE kind = 'sello.document'`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var jobs []docJob
	for rows.Next() {
		var j docJob
		if err := rows.Scan(&j.state, &j.attempt, &j.snoozes); err != nil {
			tb.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return jobs
}

// TestLifecycleStopWhileWaiting: a server stopped while a document waits
// for DGII's verdict does not wait for DGII: the document's job snoozes
// (it is taken up at the next start) and the document stays submitted.
func TestLifecycleStopWhileWaiting(t *testing.T) {
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, ProcessingDelay: 8 * time.Second})
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	s := MustRunServer(t, "--dgii-url", ts.URL, "--dgii-timeout", "2s")
	key := s.Keys[sello.EnvTest]
	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()}))["encf"].(string)
	s.waitFor(t, key, encf, func(d map[string]any) bool { return d["status"] == "submitted" })
	s.Stop(t)

	db := mustOpenStore(t, s)
	tenant, err := db.FindTenantByRNC(t.Context(), demoRNC)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := db.FindDocument(t.Context(), tenant.ID, sello.EnvTest, encf)
	if err != nil {
		t.Fatal(err)
	}
	jobs := documentJobs(t, s)
	if len(jobs) != 1 || doc.Status != sello.StatusSubmitted || (jobs[0].state != "scheduled" && jobs[0].state != "available") {
		t.Fatalf("after the stop: document %s, jobs %+v; want submitted and one job snoozed for later (scheduled or available), not waited for", doc.Status, jobs)
	}
}

// TestTradeBetweenTenants sends an e-CF from the demo issuer to the demo
// buyer in one `sello serve --demo`: DGII (simulated) accepts it, its
// directory points at the buyer's receiver on this same server, the issuer
// authenticates there and posts it, the buyer answers a signed acuse, and
// the document is delivered — stored on the buyer's side byte for byte.
func TestTradeBetweenTenants(t *testing.T) {
	s := MustRunServer(t)
	key := s.Keys[sello.EnvTest]
	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(demoBuyerRNC))}))["encf"].(string)
	d := s.waitFor(t, key, encf, func(d map[string]any) bool {
		st := d["delivery"].(map[string]any)["status"]
		return sello.Status(d["status"].(string)).Final() && st != sello.DeliveryPending && st != sello.DeliveryNotSent
	})
	if d["status"] != string(sello.StatusAccepted) || d["delivery"].(map[string]any)["status"] != sello.DeliveryDelivered {
		t.Fatalf("document %s: status %v, delivery %v; want accepted and delivered", encf, d["status"], d["delivery"])
	}
	signed := s.Do(t, request{Method: "GET", Path: docsPath + "/" + encf + "/xml", Key: key})
	if signed.Status != http.StatusOK {
		t.Fatalf("signed xml: %d", signed.Status)
	}
	db := mustOpenStore(t, s)
	buyer, err := db.FindTenantByRNC(t.Context(), demoBuyerRNC)
	if err != nil {
		t.Fatal(err)
	}
	in, err := db.FindInboundDocumentByENCF(t.Context(), buyer.ID, sello.EnvTest, demoRNC, encf)
	if err != nil {
		t.Fatalf("the buyer's inbound document: %v", err)
	}
	if !bytes.Equal(in.XML, signed.Body) || in.BuyerRNC != demoBuyerRNC || len(in.Acuse) == 0 {
		t.Errorf("inbound document: buyer %s, %d bytes of XML (the issuer signed %d), %d of acuse", in.BuyerRNC, len(in.XML), len(signed.Body), len(in.Acuse))
	}
	// Every check of a signer is on: the issuer's certificate, issued by
	// the demo CA the receivers trust, is recorded trusted.
	if in.Signer == nil || !in.Signer.Trusted || in.Signer.SerialNumber != "RNC-"+demoRNC || in.Signer.Issuer != "CN=Sello Demo CA,O=Sello (demo),C=DO" {
		t.Errorf("the inbound document's signer: got %+v, want the issuer's demo certificate, trusted", in.Signer)
	}
}

// TestSimulatorSendsToTenant plays DGII's TesteCF in certification: the
// simulator, as an issuer, authenticates at the demo buyer's receiver and
// sends it a signed sample e-CF; the buyer answers a signed ARECF Estado 0
// and lists the document among its received ones.
func TestSimulatorSendsToTenant(t *testing.T) {
	s := MustRunServer(t)
	sign, err := simulatorSigner()
	if err != nil {
		t.Fatal(err)
	}
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, Receivers: func(env sello.Environment, rnc string) (string, string, bool) {
		return demoBuyerName, s.URL + "/" + string(env) + "/receptor/" + rnc, rnc == demoBuyerRNC
	}})
	sent, err := sim.SendECF(t.Context(), &http.Client{Timeout: 10 * time.Second}, sello.EnvTest, demoBuyerRNC)
	if err != nil {
		t.Fatal(err)
	}
	if sent.Status != http.StatusOK || !bytes.Contains(sent.Body, []byte("<Estado>0</Estado>")) {
		t.Fatalf("reception: %d %s", sent.Status, sent.Body)
	}
	if _, err := xmldsig.Verify(sent.Body); err != nil {
		t.Errorf("the ARECF's signature: %v", err)
	}
	list := s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos", Key: s.BuyerKeys[sello.EnvTest]})
	if list.Status != http.StatusOK || !bytes.Contains(list.Body, []byte(sent.ENCF)) {
		t.Fatalf("the buyer's received documents: %d %s; want %s", list.Status, list.Body, sent.ENCF)
	}
	if _, err := sim.SendECF(t.Context(), http.DefaultClient, sello.EnvTest, "101010101"); err == nil {
		t.Error("SendECF to an RNC that is not a receiver: no error")
	}
	// The same on request, over the simulator's HTTP.
	ts := httptest.NewServer(sim)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/testecf/simulador/enviarecf?rnc="+demoBuyerRNC, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ENCF      string
		Status    int
		Respuesta string
	}
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || got.Status != http.StatusOK || !strings.Contains(got.Respuesta, "<Estado>0</Estado>") || got.ENCF == sent.ENCF {
		t.Fatalf("enviarecf: %d %+v (%v)", resp.StatusCode, got, err)
	}
}

// TestApprovalBetweenTenants closes the loop of TestTradeBetweenTenants,
// on SQLite and on PostgreSQL: the buyer approves (or rejects, with its
// reason) the received e-CF through the API; Sello signs the ACECF and sends
// it to the issuer's receiver (this server) and a copy to DGII; the issuer's
// document then carries the buyer's verdict, and the buyer is told its
// approval went out.
func TestApprovalBetweenTenants(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		t.Run("Approved", func(t *testing.T) { testTrade(t, MustRunServer(t), "aprobado", "") })
		t.Run("Rejected", func(t *testing.T) { testTrade(t, MustRunServer(t), "rechazado", "Precio distinto al pactado") })
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		t.Run("Approved", func(t *testing.T) {
			testTrade(t, MustRunServer(t, "--database-url", pgtest.MustSchema(t)), "aprobado", "")
		})
		t.Run("Rejected", func(t *testing.T) {
			testTrade(t, MustRunServer(t, "--database-url", pgtest.MustSchema(t)), "rechazado", "Mercancía no recibida")
		})
	})
}

// testTrade sends an e-CF from the demo issuer to the demo buyer on s, and
// the buyer's verdict (estado, motivo) back.
func testTrade(t *testing.T, s *testServer, estado, motivo string) {
	key, buyerKey := s.Keys[sello.EnvTest], s.BuyerKeys[sello.EnvTest]
	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(demoBuyerRNC))}))["encf"].(string)
	s.waitFor(t, key, encf, func(d map[string]any) bool {
		return d["delivery"].(map[string]any)["status"] == sello.DeliveryDelivered
	})
	list := s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos", Key: buyerKey}).JSON(t)
	docs := list["data"].([]any)
	if len(docs) != 1 || docs[0].(map[string]any)["encf"] != encf {
		t.Fatalf("the buyer's received documents: %v", docs)
	}
	id := docs[0].(map[string]any)["id"].(string)
	// The buyer's receiver asks DGII about the document it received, and
	// DGII (the simulator) accepted it before the issuer delivered it.
	in := s.waitInbound(t, buyerKey, id, func(d map[string]any) bool { return d["dgii"].(map[string]any)["status"] != sello.DGIIPending })
	if g := in["dgii"].(map[string]any); g["status"] != sello.DGIIAccepted || g["codigo"] != float64(1) || g["checkedAt"] == nil {
		t.Fatalf("the buyer's document's dgii: %v; want accepted, codigo 1", g)
	}
	received, _ := time.Parse(time.RFC3339, in["receivedAt"].(string))
	checked, _ := time.Parse(time.RFC3339, in["dgii"].(map[string]any)["checkedAt"].(string))
	t.Logf("DGII confirmed the buyer's document %s after its receipt", checked.Sub(received))
	testTradeDuplicate(t, s, encf)
	body, _ := json.Marshal(map[string]string{"inboundDocumentId": id, "estado": estado})
	if motivo != "" {
		body, _ = json.Marshal(map[string]string{"inboundDocumentId": id, "estado": estado, "motivo": motivo})
	}
	if r := s.Do(t, request{Method: "POST", Path: "/TesteCF/aprobaciones-comerciales", Key: buyerKey, Body: body}); r.Status != http.StatusAccepted {
		t.Fatalf("%s: %d %s", estado, r.Status, r.Body)
	}
	want := map[string]string{"aprobado": "approved", "rechazado": "rejected"}[estado]
	d := s.waitFor(t, key, encf, func(d map[string]any) bool { return d["commercialApproval"] != nil })
	a := d["commercialApproval"].(map[string]any)
	if a["status"] != want || a["buyerRnc"] != demoBuyerRNC || (motivo != "" && a["reason"] != motivo) {
		t.Fatalf("the issuer's commercialApproval: %v; want %s (%q) from %s", a, want, motivo, demoBuyerRNC)
	}
	if signer, _ := a["signer"].(map[string]any); signer["trusted"] != true || signer["serialNumber"] != "RNC-"+demoBuyerRNC || len(a["verdicts"].([]any)) != 1 {
		t.Fatalf("the approval's signer: %v, verdicts %v; want the buyer's demo certificate, trusted, and one verdict", a["signer"], a["verdicts"])
	}
	var events []byte
	if !testwait.Within(30*time.Second, 20*time.Millisecond, func() bool {
		events = s.Do(t, request{Method: "GET", Path: "/TesteCF/eventos", Key: buyerKey}).Body
		return bytes.Contains(events, []byte(`"inbound.approval.`))
	}) || !bytes.Contains(events, []byte(`"inbound.approval.sent"`)) {
		t.Fatalf("the buyer's events: %s", events)
	}
}

// TestSimulatorApprovesTenantDocument plays the buyer of a tenant's e-CF as
// DGII's TesteCF does in certification: once DGII (the simulator) accepted
// the document, the simulator rejects it (and, over its HTTP control,
// approves another) with a signed ACECF posted to the tenant's commercial
// approval service; the tenant's document carries the verdict.
func TestSimulatorApprovesTenantDocument(t *testing.T) {
	sign, err := simulatorSigner()
	if err != nil {
		t.Fatal(err)
	}
	var self atomic.Pointer[string]
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, ProcessingDelay: 100 * time.Millisecond,
		Receivers: func(env sello.Environment, rnc string) (string, string, bool) {
			return demoName, *self.Load() + "/" + string(env) + "/receptor/" + rnc, rnc == demoRNC
		}})
	ts := httptest.NewServer(sim)
	defer ts.Close()
	s := MustRunServer(t, "--dgii-url", ts.URL, "--dgii-timeout", "2s")
	self.Store(&s.URL)
	key := s.Keys[sello.EnvTest]
	accepted := func() string {
		encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer("101010101"))}))["encf"].(string)
		if d := s.final(t, key, encf); d["status"] != string(sello.StatusAccepted) {
			t.Fatalf("%s: %v", encf, d["status"])
		}
		return encf
	}

	rejected := accepted()
	sent, err := sim.SendACECF(t.Context(), &http.Client{Timeout: 10 * time.Second}, sello.EnvTest, demoRNC, rejected, false, "Mercancía dañada")
	if err != nil || sent.Status != http.StatusOK {
		t.Fatalf("SendACECF: %+v, %v", sent, err)
	}
	d := s.waitFor(t, key, rejected, func(d map[string]any) bool { return d["commercialApproval"] != nil })
	if a := d["commercialApproval"].(map[string]any); a["status"] != "rejected" || a["reason"] != "Mercancía dañada" || a["buyerRnc"] != "101010101" {
		t.Fatalf("commercialApproval %v", a)
	}

	approved := accepted()
	resp, err := http.Post(ts.URL+"/testecf/simulador/enviaracecf?rnc="+demoRNC+"&encf="+approved+"&estado=aprobado", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("enviaracecf: %d", resp.StatusCode)
	}
	d = s.waitFor(t, key, approved, func(d map[string]any) bool { return d["commercialApproval"] != nil })
	if a := d["commercialApproval"].(map[string]any); a["status"] != "approved" {
		t.Fatalf("commercialApproval %v", a)
	}
	if _, err := sim.SendACECF(t.Context(), http.DefaultClient, sello.EnvTest, demoRNC, "E310000009999", true, ""); err == nil {
		t.Error("SendACECF of an e-CF DGII never received: no error")
	}
}

// TestDeliveryToWrongReceiver: DGII's directory (the simulator) sends the
// buyer 131999999's e-CFs to the demo buyer's receiver, whose tenant is not
// that buyer. The receiver answers a signed ARECF code 4 and stores
// nothing; the issuer's delivery fails with that reason.
func TestDeliveryToWrongReceiver(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testDeliveryToWrongReceiver(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testDeliveryToWrongReceiver(t, "--database-url", pgtest.MustSchema(t)) })
}

func testDeliveryToWrongReceiver(t *testing.T, storage ...string) {
	sign, err := simulatorSigner()
	if err != nil {
		t.Fatal(err)
	}
	var self atomic.Pointer[string]
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, ProcessingDelay: 100 * time.Millisecond,
		Receivers: func(env sello.Environment, rnc string) (string, string, bool) {
			return "Otro SRL", *self.Load() + "/" + string(env) + "/receptor/" + demoBuyerRNC, rnc == "131999999"
		}})
	ts := httptest.NewServer(sim)
	defer ts.Close()
	s := MustRunServer(t, append([]string{"--dgii-url", ts.URL, "--dgii-timeout", "2s"}, storage...)...)
	self.Store(&s.URL)
	key := s.Keys[sello.EnvTest]
	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer("131999999"))}))["encf"].(string)
	d := s.waitFor(t, key, encf, func(d map[string]any) bool {
		st := d["delivery"].(map[string]any)["status"]
		return sello.Status(d["status"].(string)).Final() && st != sello.DeliveryPending && st != sello.DeliveryNotSent
	})
	if got := d["delivery"].(map[string]any); got["status"] != sello.DeliveryFailed || got["code"] != "4" {
		t.Fatalf("delivery %v; want failed with code 4", got)
	}
	list := s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos", Key: s.BuyerKeys[sello.EnvTest]}).JSON(t)
	if n := len(list["data"].([]any)); n != 0 {
		t.Fatalf("the demo buyer stored %d documents of another buyer", n)
	}
}

// waitInbound waits (30 s at most) until the inbound document id, read with
// key, holds cond, and returns it.
func (s *testServer) waitInbound(tb testing.TB, key, id string, cond func(map[string]any) bool) map[string]any {
	tb.Helper()
	return s.waitForPath(tb, key, "/TesteCF/documentos-recibidos/"+id, cond)
}

// testTradeDuplicate posts the issuer's delivered e-CF to the buyer's
// receiver again, as the issuer would after losing the first answer: the
// buyer answers the same acuse, byte for byte; a different document under
// the same issuer and e-NCF, now that DGII confirmed the first, gets code 3
// (duplicate). Nothing more is stored.
func testTradeDuplicate(t *testing.T, s *testServer, encf string) {
	t.Helper()
	signed := s.Do(t, request{Method: "GET", Path: docsPath + "/" + encf + "/xml", Key: s.Keys[sello.EnvTest]}).Body
	sign, err := simulatorSigner() // any valid signature authenticates at a receiver
	if err != nil {
		t.Fatal(err)
	}
	base := s.URL + "/TesteCF/receptor/" + demoBuyerRNC
	entry := dgii.DirectoryEntry{RNC: demoBuyerRNC, URLRecepcion: base, URLAceptacion: base, URLOpcional: base}
	rc := dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: &http.Client{Timeout: 10 * time.Second}})
	from := dgii.Sender{Environment: sello.EnvTest, RNC: demoRNC, Sign: func(_ context.Context, x []byte) ([]byte, error) { return sign(x) }}
	first, err := rc.SendECF(t.Context(), from, entry, demoRNC+encf+".xml", signed)
	if err != nil || !bytes.Contains(first, []byte("<Estado>0</Estado>")) {
		t.Fatalf("the same e-CF again: %s, %v", first, err)
	}
	again, err := rc.SendECF(t.Context(), from, entry, demoRNC+encf+".xml", signed)
	if err != nil || !bytes.Equal(again, first) {
		t.Fatalf("the same e-CF a third time: a different acuse (%v)", err)
	}
	unsigned := append(bytes.Replace(signed[:bytes.Index(signed, []byte("<Signature"))], []byte("Consultoría"), []byte("Asesoría"), 1), "</ECF>"...)
	other, err := sign(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	dup, err := rc.SendECF(t.Context(), from, entry, demoRNC+encf+".xml", other)
	if err != nil || !bytes.Contains(dup, []byte("<CodigoMotivoNoRecibido>3</CodigoMotivoNoRecibido>")) {
		t.Fatalf("another document under the same e-NCF: %s, %v; want code 3", dup, err)
	}
	list := s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos", Key: s.BuyerKeys[sello.EnvTest]}).JSON(t)
	if n := len(list["data"].([]any)); n != 1 {
		t.Fatalf("the buyer stored %d documents, want 1", n)
	}
}

// TestPreEmptedTrade is the pre-emption of issue 20 (finding 2) on the demo:
// a forged copy of the issuer's e-CF, under its e-NCF and to its buyer,
// reaches the buyer's receiver before the genuine one. The genuine one is
// received all the same (delivered, not code 3); DGII (the simulator)
// confirms it and not the forged one, which is refuted; the buyer's list
// shows which is which, and only the genuine one can be approved.
func TestPreEmptedTrade(t *testing.T) {
	s := MustRunServer(t, "--dgii-sim-delay", "4s")
	key, buyerKey := s.Keys[sello.EnvTest], s.BuyerKeys[sello.EnvTest]
	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(demoBuyerRNC))}))["encf"].(string)
	// The forger reads the issuer's e-NCF, as printed on its invoices, and
	// is first at the buyer with its own document under it.
	var signed []byte
	if !testwait.Within(30*time.Second, 10*time.Millisecond, func() bool {
		r := s.Do(t, request{Method: "GET", Path: docsPath + "/" + encf + "/xml", Key: key})
		signed = r.Body
		return r.Status == http.StatusOK
	}) {
		t.Fatalf("%s was not signed within 30 s", encf)
	}
	sign, err := simulatorSigner() // TesteCF receivers take any certificate
	if err != nil {
		t.Fatal(err)
	}
	unsigned := append(bytes.Replace(signed[:bytes.Index(signed, []byte("<Signature"))], []byte("<MontoTotal>"), []byte("<MontoTotal>1"), 1), "</ECF>"...)
	forged, err := sign(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	base := s.URL + "/TesteCF/receptor/" + demoBuyerRNC
	entry := dgii.DirectoryEntry{RNC: demoBuyerRNC, URLRecepcion: base, URLAceptacion: base, URLOpcional: base}
	acuse, err := dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: &http.Client{Timeout: 10 * time.Second}}).SendECF(t.Context(),
		dgii.Sender{Environment: sello.EnvTest, RNC: demoRNC, Sign: func(_ context.Context, x []byte) ([]byte, error) { return sign(x) }},
		entry, demoRNC+encf+".xml", forged)
	if err != nil || !bytes.Contains(acuse, []byte("<Estado>0</Estado>")) {
		t.Fatalf("the forged copy: %s, %v", acuse, err)
	}
	if d := s.waitFor(t, key, encf, func(d map[string]any) bool {
		st := d["delivery"].(map[string]any)["status"]
		return sello.Status(d["status"].(string)).Final() && st != sello.DeliveryPending && st != sello.DeliveryNotSent
	}); d["delivery"].(map[string]any)["status"] != sello.DeliveryDelivered {
		t.Fatalf("the genuine one's delivery: %v; want delivered", d["delivery"])
	}

	list := func(query string) []map[string]any {
		var out []map[string]any
		for _, d := range s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos" + query, Key: buyerKey}).JSON(t)["data"].([]any) {
			out = append(out, d.(map[string]any))
		}
		return out
	}
	all := list("")
	if len(all) != 2 || all[0]["encf"] != encf || all[1]["encf"] != encf {
		t.Fatalf("the buyer's documents: %v; want the genuine and the forged under %s", all, encf)
	}
	genuineID, forgedID := all[0]["id"].(string), all[1]["id"].(string) // newest first
	s.waitInbound(t, buyerKey, forgedID, func(d map[string]any) bool { return d["dgii"].(map[string]any)["status"] == sello.DGIIRefuted })
	g := s.waitInbound(t, buyerKey, genuineID, func(d map[string]any) bool { return d["dgii"].(map[string]any)["status"] == sello.DGIIAccepted })
	if g["total"] == all[1]["total"] {
		t.Fatalf("the accepted one has the forged total %v", g["total"])
	}
	for _, c := range []struct{ state, want string }{{"accepted", genuineID}, {"refuted", forgedID}} {
		if got := list("?dgii=" + c.state); len(got) != 1 || got[0]["id"] != c.want {
			t.Errorf("?dgii=%s: %v; want %s", c.state, got, c.want)
		}
	}
	approve := func(id string) *response {
		body, _ := json.Marshal(map[string]string{"inboundDocumentId": id, "estado": "aprobado"})
		return s.Do(t, request{Method: "POST", Path: "/TesteCF/aprobaciones-comerciales", Key: buyerKey, Body: body})
	}
	if r := approve(forgedID); r.Status != http.StatusUnprocessableEntity || !bytes.Contains(r.Body, []byte("dgii.status refuted")) {
		t.Fatalf("approving the forged one: %d %s; want 422 naming refuted", r.Status, r.Body)
	}
	if r := approve(genuineID); r.Status != http.StatusAccepted {
		t.Fatalf("approving the genuine one: %d %s", r.Status, r.Body)
	}
	events := s.Do(t, request{Method: "GET", Path: "/TesteCF/eventos", Key: buyerKey}).Body
	if !bytes.Contains(events, []byte(`"inbound.dgii_confirmed"`)) || !bytes.Contains(events, []byte(`"inbound.dgii_refuted"`)) {
		t.Errorf("the buyer's events lack inbound.dgii_confirmed or inbound.dgii_refuted: %s", events)
	}
}

// TestSimulatorSentConfirmed: the simulator answers consultaestado for the
// e-CFs its simulated issuer sends to a tenant (it accepted them before the
// tenant received them), and for nothing else: the tenant's copy of a
// sample is confirmed, a forged e-CF of the same issuer that the simulator
// never received is not found, and a forgery under the sample's e-NCF,
// posted after DGII confirmed the sample, is a duplicate (code 3).
func TestSimulatorSentConfirmed(t *testing.T) {
	sign, err := simulatorSigner()
	if err != nil {
		t.Fatal(err)
	}
	var self atomic.Pointer[string]
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign,
		Receivers: func(env sello.Environment, rnc string) (string, string, bool) {
			return demoBuyerName, *self.Load() + "/" + string(env) + "/receptor/" + rnc, rnc == demoBuyerRNC
		}})
	ts := httptest.NewServer(sim)
	defer ts.Close()
	s := MustRunServer(t, "--dgii-url", ts.URL, "--dgii-timeout", "2s")
	self.Store(&s.URL)
	buyerKey := s.BuyerKeys[sello.EnvTest]
	sent, err := sim.SendECF(t.Context(), &http.Client{Timeout: 10 * time.Second}, sello.EnvTest, demoBuyerRNC)
	if err != nil || !bytes.Contains(sent.Body, []byte("<Estado>0</Estado>")) {
		t.Fatalf("SendECF: %+v, %v", sent, err)
	}
	docs := s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos", Key: buyerKey}).JSON(t)["data"].([]any)
	if len(docs) != 1 {
		t.Fatalf("the buyer's documents: %v", docs)
	}
	id := docs[0].(map[string]any)["id"].(string)
	s.waitInbound(t, buyerKey, id, func(d map[string]any) bool { return d["dgii"].(map[string]any)["status"] == sello.DGIIAccepted })

	sample := s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos/" + id + "/xml", Key: buyerKey}).Body
	post := func(encf string, total string) []byte {
		t.Helper()
		x := sample[:bytes.Index(sample, []byte("<Signature"))]
		x = bytes.Replace(x, []byte("<eNCF>"+sent.ENCF+"</eNCF>"), []byte("<eNCF>"+encf+"</eNCF>"), 1)
		x = bytes.Replace(x, []byte("<MontoTotal>1180.00</MontoTotal>"), []byte("<MontoTotal>"+total+"</MontoTotal>"), 1)
		forged, err := sign(append(x, "</ECF>"...))
		if err != nil {
			t.Fatal(err)
		}
		base := s.URL + "/TesteCF/receptor/" + demoBuyerRNC
		acuse, err := dgii.NewReceptor(dgii.ReceptorConfig{HTTPClient: &http.Client{Timeout: 10 * time.Second}}).SendECF(t.Context(),
			dgii.Sender{Environment: sello.EnvTest, RNC: dgiisim.RNCDGIITest, Sign: func(_ context.Context, x []byte) ([]byte, error) { return sign(x) }},
			dgii.DirectoryEntry{RNC: demoBuyerRNC, URLRecepcion: base, URLAceptacion: base, URLOpcional: base},
			dgiisim.RNCDGIITest+encf+".xml", forged)
		if err != nil {
			t.Fatal(err)
		}
		return acuse
	}
	other := "E31" + strings.Repeat("9", 10)
	if acuse := post(other, "1180.00"); !bytes.Contains(acuse, []byte("<Estado>0</Estado>")) {
		t.Fatalf("a forged e-CF under a new e-NCF: %s", acuse)
	}
	var forgedID string
	for _, d := range s.Do(t, request{Method: "GET", Path: "/TesteCF/documentos-recibidos", Key: buyerKey}).JSON(t)["data"].([]any) {
		if d := d.(map[string]any); d["encf"] == other {
			forgedID = d["id"].(string)
		}
	}
	s.waitInbound(t, buyerKey, forgedID, func(d map[string]any) bool { return d["dgii"].(map[string]any)["status"] == sello.DGIINotFound })
	if acuse := post(sent.ENCF, "99.00"); !bytes.Contains(acuse, []byte("<CodigoMotivoNoRecibido>3</CodigoMotivoNoRecibido>")) {
		t.Fatalf("a forgery under the confirmed sample's e-NCF: %s; want code 3", acuse)
	}
}
