package portal_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// Inicio, the month at a glance: its totals, charts and tables from the
// store's day totals, what to look after (e-NCF ranges, certificates,
// failed webhook deliveries, DGII's contingency), every role reading it,
// and nothing of another company.

// homeDraft is a create of typ numbered from its range, issued on day
// with total and itbis.
func homeDraft(tenantID string, env sello.Environment, typ sello.DocumentType, day sello.Date, total, itbis string) sello.DocumentDraft {
	return sello.DocumentDraft{TenantID: tenantID, Environment: env, Type: typ,
		Prepare: func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			payload, _ := json.Marshal(map[string]any{"ECF": map[string]any{"eNCF": n.String()}})
			return &sello.PreparedDocument{Payload: payload, Total: total, ITBIS: itbis, BuyerRNC: "131880681", IssueDate: day}, nil
		}}
}

// homeInbound is a document a supplier sent tenantID, numbered n, issued
// on day, with total and itbis as written.
func homeInbound(tenantID string, n int64, day sello.Date, total, itbis string) *sello.InboundDocument {
	e := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}.String()
	return &sello.InboundDocument{
		TenantID: tenantID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: e,
		IssuerRNC: "131000001", IssuerName: "Proveedor Ejemplo SRL", BuyerRNC: "130000001",
		IssueDate: day, Total: total, ITBIS: itbis, Approval: sello.ApprovalPending,
		XML: []byte("<ECF><eNCF>" + e + "</eNCF></ECF>"), Acuse: []byte("<ARECF>" + e + "</ARECF>"), SecurityCode: "q7Xk2P",
	}
}

// mustHomeMonth gives the site's tenant a month: three documents issued
// today and on the 1st (one accepted, one rejected, a credit note on its
// way), one accepted last month, two received today (one confirmed), a
// range of E31 running out, a certificate expiring in 10 days, and one
// failed webhook delivery. Another company has a document of
// RD$ 999,999.00 today.
func mustHomeMonth(tb testing.TB, site *Site) {
	tb.Helper()
	ctx := tb.Context()
	s, tn := site.Store, site.Tenant
	now := site.Clock.Now()
	today := sello.TodayInDR(now)
	first := sello.Date{Year: today.Year, Month: today.Month, Day: 1}
	prev := sello.DateOf(time.Date(today.Year, today.Month, 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0))
	expires := sello.DateOf(now.AddDate(1, 0, 0))
	if err := s.AddSequence(ctx, &sello.Sequence{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 1, To: 100, ExpiresOn: &expires}); err != nil {
		tb.Fatal(err)
	}
	storetest.MustAddSequence(tb, s, tn.ID, sello.EnvTest, sello.TypeNotaCredito, 1, 100000)
	d1 := storetest.MustCreateDocument(tb, s, homeDraft(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, today, "1180.00", "180.00"))
	d2 := storetest.MustCreateDocument(tb, s, homeDraft(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, first, "2360.00", "360.00"))
	storetest.MustCreateDocument(tb, s, homeDraft(tn.ID, sello.EnvTest, sello.TypeNotaCredito, today, "118.00", "18.00"))
	d4 := storetest.MustCreateDocument(tb, s, homeDraft(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, prev, "500.00", "90.00"))
	for _, c := range []struct {
		doc *sello.Document
		st  sello.Status
	}{{d1, sello.StatusAccepted}, {d2, sello.StatusRejected}, {d4, sello.StatusAccepted}} {
		if _, err := s.UpdateDocument(ctx, tn.ID, sello.EnvTest, c.doc.ID, sello.DocumentChange{Status: c.st}); err != nil {
			tb.Fatal(err)
		}
	}
	r1 := storetest.MustCreateInbound(tb, s, homeInbound(tn.ID, 1, today, "5900", "900"))
	storetest.MustRecordDGII(tb, s, tn.ID, sello.EnvTest, r1.ID, 1, "Aceptado")
	storetest.MustCreateInbound(tb, s, homeInbound(tn.ID, 2, today, "100", ""))

	cert := &sello.Certificate{TenantID: tn.ID, Environment: sello.EnvTest, Subject: "CN=Ferretería Caribe SRL,C=DO", Issuer: "CN=Avansi CA",
		SerialNumber: "42", Fingerprint: "f1", NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.Add(10*24*time.Hour + time.Hour),
		DER: []byte("der"), SealedKey: []byte("sealed")}
	storetest.MustAddCertificate(tb, s, cert)

	ep := storetest.MustCreateWebhookEndpoint(tb, s, tn.ID, sello.EnvTest)
	storetest.MustCreateDocument(tb, s, homeDraft(tn.ID, sello.EnvTest, sello.TypeNotaCredito, prev, "1.00", "0.18"))
	ds, err := s.ListWebhookDeliveries(ctx, tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{EndpointID: ep.ID})
	if err != nil || len(ds) == 0 {
		tb.Fatalf("deliveries: %d, %v", len(ds), err)
	}
	if _, err := s.RecordWebhookAttempt(ctx, &sello.WebhookAttempt{DeliveryID: ds[0].ID, At: now, ResponseStatus: 500, ErrorClass: "http_status"},
		sello.WebhookOutcome{Status: sello.WebhookFailed}); err != nil {
		tb.Fatal(err)
	}

	other := &sello.Tenant{RNC: "130000002", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
	if err := s.CreateTenant(ctx, other); err != nil {
		tb.Fatal(err)
	}
	storetest.MustAddSequence(tb, s, other.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
	storetest.MustCreateDocument(tb, s, homeDraft(other.ID, sello.EnvTest, sello.TypeCreditoFiscal, today, "999999.00", "152542.37"))
}

// svgTitle finds a chart's accessible name: the svg's aria-labelledby and
// the title it names.
var svgTitle = regexp.MustCompile(`<svg class="bars"[^>]* role="img" aria-labelledby="([^"]+)"[^>]*><title id="([^"]+)">([^<]+)</title><desc id="[^"]+">[^<]+</desc>`)

func TestHome(t *testing.T) { testHome(t, MustSite(t)) }

// testHome: the accountant's Inicio says this month's totals (the credit
// note subtracted, the rejected document left out), draws four charts,
// each an image named by its title with its numbers in a table, and lists
// what to look after: E31 running out, the certificate expiring in 10
// days, one failed delivery linked to the Webhooks page's failed view.
func testHome(t *testing.T, site *Site) {
	mustHomeMonth(t, site)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "carla@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("carla@caribe.do")
	p := b.Get("/")
	wantStatus(t, p, http.StatusOK)
	body := p.Body
	// This month: d1 and the credit note issued (1180 − 118), d2
	// rejected; both received.
	wantText(t, p, "Este mes:", "RD$ 1,062.00", "RD$ 162.00", "RD$ 6,000.00", "RD$ 900.00")
	issued := section(t, body, `id="home-issued"`)
	if !strings.Contains(issued, "<dd class=\"num\">2</dd>") || !strings.Contains(issued, "RD$ 1,062.00") {
		t.Errorf("the issued card: %s", issued)
	}
	received := section(t, body, `id="home-received"`)
	if !strings.Contains(received, "<dd class=\"num\">2</dd>") || !strings.Contains(received, "RD$ 6,000.00") {
		t.Errorf("the received card: %s", received)
	}
	if strings.Contains(body, "999,999") {
		t.Error("Inicio shows another company's document")
	}
	// The charts: four images named by their titles, each with a table.
	charts := svgTitle.FindAllStringSubmatch(body, -1)
	if len(charts) != 4 {
		t.Fatalf("found %d charts named by their title, want 4", len(charts))
	}
	for _, c := range charts {
		if c[1] != c[2] {
			t.Errorf("chart %q: aria-labelledby %q names no title (%q)", c[3], c[1], c[2])
		}
	}
	wantText(t, p, "Documentos emitidos por día", "Documentos recibidos por día", "Total emitido y recibido por mes", "ITBIS emitido y recibido por mes")
	days := section(t, body, `id="issued-days"`)
	if n := strings.Count(days, "<rect "); n < 2 {
		t.Errorf("the issued chart draws %d bars, want one per state and day with documents", n)
	}
	// Its table: today's row says 1 accepted, 1 on its way (the credit
	// note), 2 in all.
	today := sello.TodayInDR(site.Clock.Now())
	todayName := time.Date(today.Year, today.Month, today.Day, 0, 0, 0, 0, time.UTC).Format("02/01/2006")
	want := "1 0 1 0 0 2"
	if today.Day == 1 { // the rejected one too
		want = "1 0 1 1 0 3"
	}
	if row := tableRow(days, todayName); row == nil || strings.Join(row, " ") != want {
		t.Errorf("today's row of the issued table: %q", row)
	}
	months := section(t, body, `id="month-totals"`)
	if row := tableRow(months, monthName(today)); row == nil || strings.Join(row, " | ") != "RD$ 1,062.00 | RD$ 6,000.00" {
		t.Errorf("this month's row of the totals table: %q", row)
	}
	// To look after.
	wantText(t, p, "E31 Crédito fiscal", "Quedan 97 números.", "CN=Ferretería Caribe SRL,C=DO", "(en 10 días)", "Entregas fallidas: 1")
	if !strings.Contains(body, `href="/portal/TesteCF/webhooks/entregas?estado=fallidas" id="home-failed"`) {
		t.Error("the failed deliveries do not link to the Webhooks page's failed view")
	}
	if strings.Contains(body, `id="dgii-banner"`) {
		t.Error("a contingency banner while DGII is available")
	}

	// CerteCF has nothing: no document, no certificate.
	cert := b.Get("/portal/CerteCF")
	wantStatus(t, cert, http.StatusOK)
	wantText(t, cert, "Ningún certificado válido firma en CerteCF", "Ninguna secuencia se está agotando.", "Todavía no hay documentos.")
	if strings.Contains(cert.Body, "RD$ 1,062.00") {
		t.Error("CerteCF's Inicio shows TesteCF's totals")
	}
	wantStatus(t, b.Get("/portal/Produccion"), http.StatusNotFound)

	// In English.
	b.Form("/", "/portal/idioma", url.Values{"lang": {"en"}, "next": {"/"}})
	en := b.Get("/")
	wantText(t, en, "This month:", "Documents issued per day", "RD$ 1,062.00", "97 numbers left.", "Failed deliveries: 1")
}

// section is the element whose start tag has attr, up to the next card
// or chart.
func section(tb testing.TB, body, attr string) string {
	tb.Helper()
	i := strings.Index(body, attr)
	if i < 0 {
		tb.Fatalf("no element with %s", attr)
	}
	rest := body[i:]
	end := len(rest)
	for _, next := range []string{`class="card`, `<figure`} {
		if j := strings.Index(rest[1:], next); j >= 0 {
			end = min(end, j+1)
		}
	}
	return rest[:end]
}

var (
	tableRowRE = regexp.MustCompile(`(?s)<tr><th scope="row">([^<]*)</th>(.*?)</tr>`)
	cellRE     = regexp.MustCompile(`<td class="num">([^<]*)</td>`)
)

// tableRow is the cells of the table row headed name, nil when none.
func tableRow(html, name string) []string {
	for _, m := range tableRowRE.FindAllStringSubmatch(html, -1) {
		if m[1] != name {
			continue
		}
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(m[2], -1) {
			cells = append(cells, c[1])
		}
		return cells
	}
	return nil
}

// monthName is Inicio's Spanish name of d's month: "noviembre de 2026".
func monthName(d sello.Date) string {
	names := []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
	return names[d.Month-1] + " de " + time.Date(d.Year, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006")
}

func TestHomeRoles(t *testing.T) { testHomeRoles(t, MustSite(t)) }

// testHomeRoles: every role reads Inicio, with the same figures; a visitor
// who is not logged in gets the login.
func testHomeRoles(t *testing.T, site *Site) {
	mustHomeMonth(t, site)
	for _, role := range sello.Roles {
		email := string(role) + "@caribe.do"
		site.MustUser(t, email, role)
		b := site.NewBrowser(t)
		b.MustLogin(email)
		p := b.Get("/portal/TesteCF")
		wantStatus(t, p, http.StatusOK)
		wantText(t, p, "RD$ 1,062.00", "Entregas fallidas: 1")
	}
	wantRedirect(t, site.NewBrowser(t).Get("/portal/TesteCF"), "/portal/entrar")
}

func TestHomeOtherTenant(t *testing.T) { testHomeOtherTenant(t, MustSite(t)) }

// testHomeOtherTenant: a person in two companies sees each one's month in
// it, never the other's, before and after switching.
func testHomeOtherTenant(t *testing.T, site *Site) {
	mustHomeMonth(t, site)
	other, err := site.Store.FindTenantByRNC(t.Context(), "130000002")
	if err != nil {
		t.Fatal(err)
	}
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUserIn(t, "ana@caribe.do", sello.RoleOwner, other)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	mine := b.Get("/")
	wantText(t, mine, "RD$ 1,062.00")
	if strings.Contains(mine.Body, "999,999") {
		t.Error("the first company's Inicio shows the other's document")
	}
	wantRedirect(t, b.Form("/", "/portal/empresa", url.Values{"tenant": {other.ID}}), "/")
	theirs := b.Get("/")
	wantText(t, theirs, "Otra SRL", "RD$ 999,999.00", "RD$ 152,542.37")
	if strings.Contains(theirs.Body, "RD$ 1,062.00") || strings.Contains(theirs.Body, "Entregas fallidas") || strings.Contains(theirs.Body, "CN=Ferretería Caribe") {
		t.Error("the other company's Inicio shows the first's figures")
	}
}

func TestHomeContingency(t *testing.T) { testHomeContingency(t, MustSite(t)) }

// TestHomePostgres runs Inicio's tests on PostgreSQL
// (SELLO_TEST_DATABASE_URL), each on a fresh schema.
func TestHomePostgres(t *testing.T) {
	pgtest.DatabaseURL(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, *Site)
	}{
		{"Home", testHome},
		{"Roles", testHomeRoles},
		{"OtherTenant", testHomeOtherTenant},
		{"Contingency", testHomeContingency},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			tt.test(t, MustSiteOn(t, db))
		})
	}
}

// testHomeContingency: while DGII is in contingency in the page's
// environment, Inicio says so in a banner, with the documents waiting;
// the other environments' pages have no banner.
func testHomeContingency(t *testing.T, site *Site) {
	mustHomeMonth(t, site)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	for range 2 {
		if _, _, err := site.Store.RecordDGIIOutcome(t.Context(), sello.EnvTest, sello.DGIIFailed, time.Nanosecond); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := site.Store.FindReachability(t.Context(), sello.EnvTest); err != nil || r.State != sello.DGIIContingency {
		t.Fatalf("TesteCF's state: %+v, %v; want contingency", r, err)
	}
	site.MustUser(t, "carla@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("carla@caribe.do")
	p := b.Get("/portal/TesteCF")
	wantStatus(t, p, http.StatusOK)
	banner := section(t, p.Body, `id="dgii-banner"`)
	if !strings.Contains(banner, "La DGII en TesteCF: contingencia") || !strings.Contains(banner, "La DGII no responde.") {
		t.Errorf("the banner: %s", banner)
	}
	if strings.Contains(b.Get("/portal/eCF").Body, `id="dgii-banner"`) {
		t.Error("eCF's Inicio has TesteCF's banner")
	}
}
