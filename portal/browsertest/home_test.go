package browsertest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal/browsertest"
	"github.com/sello-do/sello/storetest"
)

// TestInicio: an accountant's Inicio with a company's year in it — this
// month's documents issued and received day by day, the last 12 months'
// totals, an e-NCF range running out, a certificate expiring and a
// failed webhook delivery — draws its four charts in the browser (SVG
// images named by their titles, their numbers in tables that open), at
// both widths with no serious accessibility violation; the failed
// deliveries' link opens the Webhooks page's failed view. Then DGII's
// contingency shows as a banner.
func TestInicio(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "carla@caribe.do", sello.RoleAccountant)
	issued := seedYear(t, s)
	p := s.NewPage(t)
	p.Login("carla@caribe.do")
	if got := p.Path(); got != "/" {
		t.Fatalf("after the login the page is %s, want Inicio (/)", got)
	}
	p.WantText("Este mes:", "Para atender", "Día a día", "Los últimos 12 meses")

	// The four charts: SVG images named by their titles, with bars.
	charts := browsertest.Eval[string](p, `JSON.stringify([...document.querySelectorAll('svg.bars')].map((s) => ({
		name: document.getElementById(s.getAttribute('aria-labelledby')).textContent,
		role: s.getAttribute('role'),
		bars: s.querySelectorAll('rect').length,
		width: s.getBoundingClientRect().width,
	})))`)
	var got []struct {
		Name  string
		Role  string
		Bars  int
		Width float64
	}
	if err := json.Unmarshal([]byte(charts), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("charts: %s, want 4", charts)
	}
	for _, c := range got {
		if c.Role != "img" || c.Name == "" || c.Bars == 0 || c.Width < 300 {
			t.Errorf("chart %+v: want an image named by its title, with bars, drawn across the card", c)
		}
	}
	// The issued card says this month's documents that count.
	if facts := p.Facts("#home-issued"); facts["Documentos"] != fmt.Sprint(issued) {
		t.Errorf("the issued card: %v, want %d documents", facts, issued)
	}
	// A chart's numbers open as a table.
	p.Click("#month-totals details summary")
	if rows := len(p.Texts("#month-totals table tbody tr")); rows != sello.OverviewMonths {
		t.Errorf("the totals' table has %d rows, want %d months", rows, sello.OverviewMonths)
	}
	p.Click("#month-totals details summary")
	p.WantText("E33 Nota de débito", "Quedan 2 números.", "(en 12 días)")
	browsertest.Eval[bool](p, "window.scrollTo(0, 0), true")
	p.Look("inicio")

	// On a phone the charts fit the screen.
	phone := browsertest.Viewports[1]
	if err := chromedp.Do(p.Context(), chromedp.EmulateViewport(phone.Width, phone.Height, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)); err != nil {
		t.Fatal(err)
	}
	if w := browsertest.Eval[float64](p, `document.querySelector('#issued-days svg').getBoundingClientRect().width`); w > float64(phone.Width) || w < 300 {
		t.Errorf("on a phone the chart is %v px wide, want the screen's width less the margins", w)
	}
	if scroll := browsertest.Eval[bool](p, `document.documentElement.scrollWidth > window.innerWidth`); scroll {
		t.Error("on a phone Inicio scrolls sideways")
	}
	if err := chromedp.Do(p.Context(), chromedp.EmulateViewport(browsertest.Viewports[0].Width, browsertest.Viewports[0].Height)); err != nil {
		t.Fatal(err)
	}

	// The failed deliveries lead to their list.
	p.Submit("#home-failed")
	if got := p.Path(); got != "/portal/TesteCF/webhooks/entregas?estado=fallidas" {
		t.Errorf("the failed deliveries' link led to %s", got)
	}
	p.WantText("fallida", "500 Internal Server Error")

	// DGII in contingency: the banner.
	for range 2 {
		if _, _, err := s.Store.RecordDGIIOutcome(t.Context(), sello.EnvTest, sello.DGIIFailed, time.Nanosecond); err != nil {
			t.Fatal(err)
		}
	}
	p.Go("/")
	p.WaitFor("#dgii-banner")
	p.WantText("La DGII en TesteCF: contingencia", "La DGII no responde.")
	p.Look("inicio-contingency")
}

// seedYear gives the server's tenant a year of documents in TesteCF:
// every day of this month up to today a few invoices issued (most
// accepted, some on their way, one rejected now and then) and a few
// received, a credit note a week, and a dozen documents in each of the
// 11 months before; an E33 range with 2 numbers left, a certificate
// that expires in 12 days, and a failed webhook delivery. It returns how
// many documents issued this month count in the totals.
func seedYear(t *testing.T, s *browsertest.Server) int {
	t.Helper()
	ctx := t.Context()
	st, tn := s.Store, s.Tenant
	now := s.Clock.Now()
	today := sello.TodayInDR(now)
	next := sello.DateOf(now.AddDate(1, 0, 0))
	for _, typ := range []sello.DocumentType{sello.TypeCreditoFiscal, sello.TypeConsumo, sello.TypeNotaCredito} {
		var exp *sello.Date
		if typ.HasSequenceExpiry() {
			exp = &next
		}
		if err := st.AddSequence(ctx, &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: typ, From: 1, To: 100000, ExpiresOn: exp}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AddSequence(ctx, &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeNotaDebito, From: 1, To: 12, ExpiresOn: &next}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	lo, hi := 800, 60000
	amount := func(lo, hi int) (string, string) {
		base := lo + rng.IntN(hi-lo)
		cents := rng.IntN(100)
		total := fmt.Sprintf("%d.%02d", base*118/100, cents)
		itbis := fmt.Sprintf("%d.%02d", base*18/100, cents*18/100)
		return total, itbis
	}
	issue := func(typ sello.DocumentType, day sello.Date, status sello.Status) {
		total, itbis := amount(lo, hi)
		doc := storetest.MustCreateDocument(t, st, draft(tn.ID, typ, day, total, itbis))
		if status != sello.StatusQueuedForSigning {
			if _, err := st.UpdateDocument(ctx, tn.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: status}); err != nil {
				t.Fatal(err)
			}
		}
	}
	counted := 0
	var n int64
	receive := func(day sello.Date, confirmed bool) {
		n++
		total, itbis := amount(lo/2, hi/2)
		d := storetest.MustCreateInbound(t, st, inbound(tn.ID, n, day, total, itbis))
		if confirmed {
			storetest.MustRecordDGII(t, st, tn.ID, sello.EnvTest, d.ID, 1, "Aceptado")
		}
	}
	for d := 1; d <= today.Day; d++ {
		day := sello.Date{Year: today.Year, Month: today.Month, Day: d}
		for i := range 2 + rng.IntN(4) {
			st := sello.StatusAccepted
			switch {
			case d == today.Day && i == 0:
				st = sello.StatusSubmitted
			case d%9 == 4 && i == 1:
				st = sello.StatusRejected
			case d%6 == 2 && i == 2:
				st = sello.StatusAcceptedConditional
			}
			if st != sello.StatusRejected {
				counted++
			}
			issue([]sello.DocumentType{sello.TypeCreditoFiscal, sello.TypeConsumo}[i%2], day, st)
		}
		if d%7 == 3 {
			issue(sello.TypeNotaCredito, day, sello.StatusAccepted)
			counted++
		}
		for i := range 1 + rng.IntN(3) {
			receive(day, d < today.Day || i > 0)
		}
	}
	first := time.Date(today.Year, today.Month, 1, 0, 0, 0, 0, time.UTC)
	// The months before: fewer documents, of larger amounts.
	for m := 1; m < sello.OverviewMonths; m++ {
		month := first.AddDate(0, -m, 0)
		lo, hi = 20000+rng.IntN(20000), 300000+rng.IntN(200000)
		for i := range 8 + rng.IntN(6) {
			day := sello.DateOf(month.AddDate(0, 0, i*2))
			issue([]sello.DocumentType{sello.TypeCreditoFiscal, sello.TypeConsumo}[i%2], day, sello.StatusAccepted)
			if i%2 == 0 {
				receive(day, true)
			}
		}
	}
	lo, hi = 800, 60000
	for range 10 {
		issue(sello.TypeNotaDebito, sello.Date{Year: today.Year, Month: today.Month, Day: 1}, sello.StatusAccepted)
		counted++
	}

	cert := &sello.Certificate{TenantID: tn.ID, Environment: sello.EnvTest, Subject: "CN=FERRETERIA CARIBE SRL,SERIALNUMBER=RNC130000001,C=DO",
		Issuer: "CN=Avansi CA", SerialNumber: "42", Fingerprint: "f1", NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.Add(12*24*time.Hour + time.Hour),
		DER: []byte("der"), SealedKey: []byte("sealed")}
	storetest.MustAddCertificate(t, st, cert)

	// An endpoint that answers 500, and one event for it: its delivery
	// fails once its attempts are spent.
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	t.Cleanup(receiver.Close)
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32)) // the server's
	if err != nil {
		t.Fatal(err)
	}
	ep, err := sello.NewWebhookEndpoint(mk, tn.ID, sello.EnvTest, receiver.URL+"/hook", []sello.EventType{sello.EventECFQueued}, strings.Repeat("s", 32))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateWebhookEndpoint(ctx, ep); err != nil {
		t.Fatal(err)
	}
	storetest.MustCreateDocument(t, st, draft(tn.ID, sello.TypeConsumo, sello.Date{Year: 2020, Month: 1, Day: 1}, "1.00", "0.15"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := st.CountFailedWebhookDeliveries(ctx, tn.ID, sello.EnvTest, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the webhook delivery has not failed after 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return counted
}

// draft is a create of typ in TesteCF, issued on day with total and
// itbis.
func draft(tenantID string, typ sello.DocumentType, day sello.Date, total, itbis string) sello.DocumentDraft {
	return sello.DocumentDraft{TenantID: tenantID, Environment: sello.EnvTest, Type: typ,
		Prepare: func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			payload, _ := json.Marshal(map[string]any{"ECF": map[string]any{"eNCF": n.String()}})
			return &sello.PreparedDocument{Payload: payload, Total: total, ITBIS: itbis, BuyerRNC: "131880681", IssueDate: day}, nil
		}}
}

// inbound is a document a supplier sent the tenant, numbered n.
func inbound(tenantID string, n int64, day sello.Date, total, itbis string) *sello.InboundDocument {
	e := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}.String()
	return &sello.InboundDocument{
		TenantID: tenantID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: e,
		IssuerRNC: "131000001", IssuerName: "Distribuidora Del Este SRL", BuyerRNC: "130000001",
		IssueDate: day, Total: total, ITBIS: itbis, Approval: sello.ApprovalPending,
		XML: []byte("<ECF><eNCF>" + e + "</eNCF></ECF>"), Acuse: []byte("<ARECF>" + e + "</ARECF>"), SecurityCode: "q7Xk2P",
	}
}
