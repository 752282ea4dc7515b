package portal_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/portal"
	"github.com/sello-do/sello/portal/internal/docseed"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// The Documentos pages: the list with its filters and pages, a document's
// story, its XML and PDF, the CSV export (against the API's list), the
// roles and another company's documents; on SQLite (each Test…) and on
// PostgreSQL (TestDocumentsPostgres).

var documentTests = []struct {
	name string
	test func(*testing.T, *Site)
}{
	{"List", testDocumentsList},
	{"Pages", testDocumentsPaging},
	{"Document", testDocumentPage},
	{"Files", testDocumentFiles},
	{"Roles", testDocumentsRoles},
	{"OtherTenant", testDocumentsOtherTenant},
	{"CSVMatchesAPI", testDocumentsCSV},
	{"CSVBounded", testDocumentsCSVBounded},
}

func TestDocuments(t *testing.T) {
	for _, tt := range documentTests {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, MustSite(t)) })
	}
}

// TestDocumentsPostgres runs the same on PostgreSQL
// (SELLO_TEST_DATABASE_URL), each on a fresh schema.
func TestDocumentsPostgres(t *testing.T) {
	pgtest.DatabaseURL(t)
	for _, tt := range documentTests {
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

// stories are the tenant's documents the tests read, by name.
type stories map[string]*sello.Document

// mustStories gives the site's tenant one document of each kind in
// TesteCF, with a webhook endpoint that every event is delivered to.
func mustStories(tb testing.TB, site *Site) stories {
	tb.Helper()
	storetest.MustCreateWebhookEndpoint(tb, site.Store, site.Tenant.ID, sello.EnvTest)
	s := &docseed.Seeder{Store: site.Store, Tenant: site.Tenant, Env: sello.EnvTest, Sign: true}
	approved := docseed.Verdict{Status: sello.ApprovalApproved, Holder: "IDCDO-00100000001", Name: "María Pérez"}
	return stories{
		"queued":    s.Issue(tb, docseed.Story{Status: sello.StatusQueuedForSigning}),
		"failed":    s.Issue(tb, docseed.Story{Status: sello.StatusFailed}),
		"submitted": s.Issue(tb, docseed.Story{Status: sello.StatusSubmitted, Units: 2}),
		"rejected":  s.Issue(tb, docseed.Story{Status: sello.StatusRejected}),
		"conditional": s.Issue(tb, docseed.Story{Status: sello.StatusAcceptedConditional, Delivery: sello.DeliveryFailed,
			Verdicts: []docseed.Verdict{{Status: sello.ApprovalRejected, Reason: "Precio distinto al cotizado", Holder: "IDCDO-00100000001"}}}),
		"consumo":  s.Issue(tb, docseed.Story{Type: sello.TypeConsumo, Units: 3}),
		"approved": s.Issue(tb, docseed.Story{Delivery: sello.DeliveryDelivered, Verdicts: []docseed.Verdict{approved}}),
		"disputed": s.Issue(tb, docseed.Story{Delivery: sello.DeliveryDelivered, Units: 5, Verdicts: []docseed.Verdict{approved,
			{Status: sello.ApprovalRejected, Reason: `=HYPERLINK("https://malo.example","clic")`, Holder: "IDCDO-40200000009", Name: "Pedro Gómez"}}}),
		"otherBuyer": s.Issue(tb, docseed.Story{Buyer: "101000001", Units: 4, Delivery: sello.DeliveryDelivered}),
	}
}

// listed is the e-NCFs of the documents a list page shows, in its order.
func listed(p *Page) []string {
	var out []string
	for _, m := range documentRow.FindAllStringSubmatch(p.Body, -1) {
		out = append(out, m[1])
	}
	return out
}

var documentRow = regexp.MustCompile(`<tr id="document-(E\d{12})"`)

// encfsOf is the e-NCFs of docs, in the order of names.
func (s stories) encfs(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = s[n].ENCF
	}
	return out
}

// testDocumentsList: the list shows the company's documents newest first,
// and each filter narrows it as the API's would; bad values are named on
// the page (400); another environment keeps the filter.
func testDocumentsList(t *testing.T, site *Site) {
	docs := mustStories(t, site)
	site.MustUser(t, "dueno@caribe.do", sello.RoleOwner)
	site.MustUser(t, "ana@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	const list = "/portal/TesteCF/documentos"
	p := b.Get(list)
	wantStatus(t, p, http.StatusOK)
	all := docs.encfs("otherBuyer", "disputed", "approved", "consumo", "conditional", "rejected", "submitted", "failed", "queued")
	if got := listed(p); !slices.Equal(got, all) {
		t.Fatalf("list: %v, want %v", got, all)
	}
	wantText(t, p, "Documentos de TesteCF", "RD$ 2,950.00", "101000001", "aceptado condicional", `href="/portal/TesteCF/documentos/`+docs["approved"].ENCF+`"`)
	if !strings.Contains(p.Body, `aria-current="page" href="/portal/TesteCF/documentos"`) && !strings.Contains(p.Body, `href="/portal/TesteCF/documentos" aria-current="page"`) {
		t.Errorf("the menu does not mark Documentos as the current page")
	}
	today := time.Now().In(sello.DRZone).Format("2006-01-02")
	tomorrow := time.Now().In(sello.DRZone).AddDate(0, 0, 1).Format("2006-01-02")
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"estado=rejected", docs.encfs("rejected")},
		{"estado=accepted", docs.encfs("otherBuyer", "disputed", "approved", "consumo")},
		{"tipo=E32", docs.encfs("consumo")},
		{"tipo=31&estado=accepted", docs.encfs("otherBuyer", "disputed", "approved")},
		{"comprador=1-01-00000-1", docs.encfs("otherBuyer")},
		{"comprador=131880681&estado=accepted", docs.encfs("disputed", "approved")},
		{"encf=" + strings.ToLower(docs["approved"].ENCF), docs.encfs("approved")},
		{"desde=" + today + "&hasta=" + today, all},
		{"desde=" + tomorrow, nil},
		{"hasta=" + time.Now().In(sello.DRZone).AddDate(0, 0, -1).Format("2006-01-02"), nil},
	} {
		p := b.Get(list + "?" + tt.query)
		wantStatus(t, p, http.StatusOK)
		if got := listed(p); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.query, got, tt.want)
		}
		if tt.want == nil {
			wantText(t, p, "Ningún documento coincide.")
		}
	}
	p = b.Get(list + "?estado=rejected&comprador=131880681")
	if !strings.Contains(p.Body, `href="/portal/TesteCF/documentos/exportar?comprador=131880681&amp;estado=rejected"`) {
		t.Errorf("the export link does not keep the filter")
	}

	p = b.Get(list + "?estado=nope&tipo=E99&comprador=12&encf=B0100000001&desde=ayer")
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "Elija un estado de la lista.", "Elija un tipo de la lista.", "El RNC o la cédula del comprador tiene 9 u 11 dígitos.",
		"Un e-NCF es E, el tipo y 10 dígitos", "Indique cada fecha como un día")
	if len(listed(p)) != 0 || strings.Contains(p.Body, `id="documents-export"`) {
		t.Errorf("a refused filter lists documents or offers the export")
	}
	p = b.Get(list + "?desde=" + tomorrow + "&hasta=" + today)
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "El primer día es posterior al último.")

	p = b.Get(list + "?ambiente=CerteCF&estado=accepted&cursor=abc")
	wantRedirect(t, p, "/portal/CerteCF/documentos?estado=accepted")
	if strings.Contains(p.Location(), "cursor") {
		t.Errorf("another environment keeps the cursor: %s", p.Location())
	}
	p = b.Get("/portal/CerteCF/documentos?estado=accepted")
	wantStatus(t, p, http.StatusOK)
	if got := listed(p); len(got) != 0 {
		t.Errorf("CerteCF lists TesteCF's documents: %v", got)
	}
}

// testDocumentsPaging: 50 documents a page, newest first; the next page
// follows a cursor with the filter kept; a bad cursor is refused.
func testDocumentsPaging(t *testing.T, site *Site) {
	s := &docseed.Seeder{Store: site.Store, Tenant: site.Tenant, Env: sello.EnvTest}
	var encfs []string
	for range 53 {
		encfs = append(encfs, s.Issue(t, docseed.Story{Status: sello.StatusQueuedForSigning}).ENCF)
	}
	s.Issue(t, docseed.Story{Status: sello.StatusFailed})
	slices.Reverse(encfs)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	p := b.Get("/portal/TesteCF/documentos?estado=queued_for_signing")
	wantStatus(t, p, http.StatusOK)
	if got := listed(p); !slices.Equal(got, encfs[:50]) {
		t.Fatalf("first page: %d documents, want the newest 50", len(got))
	}
	if strings.Contains(p.Body, `id="documents-newest"`) {
		t.Errorf("the first page links to the first page")
	}
	next := regexp.MustCompile(`href="([^"]+)" id="documents-older"`).FindStringSubmatch(p.Body)
	if next == nil {
		t.Fatalf("no link to the older documents")
	}
	p = b.Get(html.UnescapeString(next[1]))
	wantStatus(t, p, http.StatusOK)
	if got := listed(p); !slices.Equal(got, encfs[50:]) {
		t.Fatalf("second page: %v, want %v", got, encfs[50:])
	}
	if strings.Contains(p.Body, `id="documents-older"`) || !strings.Contains(p.Body, `href="/portal/TesteCF/documentos?estado=queued_for_signing" id="documents-newest"`) {
		t.Errorf("the last page: want a link to the newest and none further")
	}
	p = b.Get("/portal/TesteCF/documentos?cursor=garbage")
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "Esta página de la lista no existe.")
}

// testDocumentPage: a document's story, each step at its time in the
// Dominican Republic's; DGII's answer; the delivery; a disputed approval
// with both signers; its webhook deliveries linked to their pages.
func testDocumentPage(t *testing.T, site *Site) {
	docs := mustStories(t, site)
	site.MustUser(t, "dueno@caribe.do", sello.RoleOwner)
	site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("dev@caribe.do")
	d := docs["disputed"]
	p := b.Get("/portal/TesteCF/documentos/" + d.ENCF)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Documento "+d.ENCF, "RD$ 2,950.00", "131880681", "Aceptado", "entregada", "en disputa",
		"Firmantes del comprador enviaron veredictos distintos",
		"Veredicto 1: aprobada", "IDCDO-00100000001", "María Pérez",
		"Veredicto 2: rechazada", "IDCDO-40200000009", "Pedro Gómez", `=HYPERLINK("https://malo.example","clic")`,
		"Encadena con las raíces de confianza del receptor", d.SecurityCode,
		`href="/portal/TesteCF/documentos/`+d.ENCF+`/xml"`, `href="/portal/TesteCF/documentos/`+d.ENCF+`/pdf"`)

	history, err := site.Store.FindDocumentHistory(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	events, err := site.Store.FindDocumentEvents(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	steps := regexp.MustCompile(`(?s)<li id="step-\d+"><p class="step-title"><strong>([^<]+)</strong> <time datetime="([^"]+)">([^<]+)</time>`).FindAllStringSubmatch(p.Body, -1)
	var titles []string
	for _, s := range steps {
		titles = append(titles, html.UnescapeString(s[1]))
	}
	want := []string{"En cola para firmar", "Firmado", "Enviado a la DGII", "Aceptado por la DGII", "Entregado al comprador",
		"Aprobación comercial del comprador recibida", "Aprobación comercial del comprador en disputa"}
	if !slices.Equal(titles, want) {
		t.Fatalf("timeline: %q, want %q", titles, want)
	}
	// Five history rows and seven events: each change's row and event are
	// one step; the two verdicts are events alone.
	if len(history) != 5 || len(events) != 7 {
		t.Fatalf("history %d rows, events %d; want 5 and 7", len(history), len(events))
	}
	for i, ev := range events {
		dr := ev.CreatedAt.In(sello.DRZone).Format("02/01/2006 15:04:05")
		if steps[i][3] != dr || steps[i][2] != ev.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("step %d at %s (%s), want %s in DR time", i+1, steps[i][3], steps[i][2], dr)
		}
	}
	wantText(t, p, "Sent to DGII; trackId "+d.TrackID+".")
	deliveries, err := site.Store.FindEventWebhookDeliveries(t.Context(), site.Tenant.ID, []string{events[0].ID, events[6].ID})
	if err != nil || len(deliveries) != 2 {
		t.Fatalf("deliveries of two events: %d, %v", len(deliveries), err)
	}
	for _, dl := range deliveries {
		wantText(t, p, `<tr id="delivery-`+dl.ID+`">`, `href="/portal/TesteCF/webhooks/entregas/`+dl.ID+`"`)
	}
	if n := strings.Count(p.Body, `<tr id="delivery-`); n != 7 {
		t.Errorf("%d webhook deliveries shown, want 7 (one per event)", n)
	}

	p = b.Get("/portal/TesteCF/documentos/" + docs["rejected"].ENCF)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Rechazado por la DGII", "2: El RNC del comprador no se encuentra registrado.", "e-NCF consumido", "Sí", "no aplica")
	p = b.Get("/portal/TesteCF/documentos/" + docs["conditional"].ENCF)
	wantText(t, p, "aceptado condicional", "fallida", "503 Service Unavailable", "Precio distinto al cotizado", "La entrega al comprador falló")
	p = b.Get("/portal/TesteCF/documentos/" + docs["consumo"].ENCF)
	wantText(t, p, "no aplica", "Este tipo no la recibe.")
	p = b.Get("/portal/TesteCF/documentos/" + docs["failed"].ENCF)
	wantText(t, p, "El documento falló", "No valid signing certificate for TesteCF", "El XML y el PDF existen una vez firmado el documento.")
	if strings.Contains(p.Body, `id="document-xml"`) {
		t.Errorf("a document never signed offers its XML")
	}

	for _, path := range []string{"/portal/TesteCF/documentos/E310000000999", "/portal/TesteCF/documentos/nada", "/portal/TesteCF/documentos/e310000000001"} {
		wantStatus(t, b.Get(path), http.StatusNotFound)
	}
}

// testDocumentFiles: the XML is the stored signed XML, byte for byte, and
// the PDF the API's; a document not signed has neither (404).
func testDocumentFiles(t *testing.T, site *Site) {
	docs := mustStories(t, site)
	site.MustUser(t, "dueno@caribe.do", sello.RoleOwner)
	site.MustUser(t, "ana@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	d := docs["approved"]
	p := b.Get("/portal/TesteCF/documentos/" + d.ENCF + "/xml")
	wantStatus(t, p, http.StatusOK)
	xml, err := site.Store.FindDocumentXML(t.Context(), site.Tenant.ID, sello.EnvTest, d.ENCF)
	if err != nil {
		t.Fatal(err)
	}
	if p.Body != string(xml) || p.Header.Get("Content-Type") != "application/xml" ||
		p.Header.Get("Content-Disposition") != `attachment; filename="`+d.ENCF+`.xml"` || !strings.Contains(p.Body, "<SignatureValue>") {
		t.Errorf("XML: %s %q, %d bytes, want the signed XML's %d", p.Header.Get("Content-Type"), p.Header.Get("Content-Disposition"), len(p.Body), len(xml))
	}
	p = b.Get("/portal/TesteCF/documentos/" + d.ENCF + "/pdf")
	wantStatus(t, p, http.StatusOK)
	if !strings.HasPrefix(p.Body, "%PDF-") || p.Header.Get("Content-Type") != "application/pdf" ||
		p.Header.Get("Content-Disposition") != `attachment; filename="`+d.ENCF+`.pdf"` {
		t.Errorf("PDF: %s %q, starts %q", p.Header.Get("Content-Type"), p.Header.Get("Content-Disposition"), p.Body[:min(8, len(p.Body))])
	}
	// The API answers the same PDF for the same document.
	apiURL, key := mustAPI(t, site)
	req, _ := http.NewRequest("GET", apiURL+"/TesteCF/documentos-ecf/"+d.ENCF+"/pdf", nil)
	req.Header.Set("X-API-KEY", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var fromAPI bytes.Buffer
	fromAPI.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !samePDF(fromAPI.String(), p.Body) {
		t.Errorf("the API's PDF (%d, %d bytes) is not the portal's (%d bytes)", resp.StatusCode, fromAPI.Len(), len(p.Body))
	}
	if other := b.Get("/portal/TesteCF/documentos/" + docs["disputed"].ENCF + "/pdf"); samePDF(other.Body, p.Body) {
		t.Errorf("two documents' PDFs compare the same")
	}
	for _, kind := range []string{"xml", "pdf"} {
		p := b.Get("/portal/TesteCF/documentos/" + docs["queued"].ENCF + "/" + kind)
		wantStatus(t, p, http.StatusNotFound)
	}
}

// pdfStream is a stream of a PDF: its content.
var pdfStream = regexp.MustCompile(`(?s)stream\r?\n(.*?)endstream`)

// samePDF reports whether two renderings are one PDF: the same streams
// (the pages' drawing and the QR's image), inflated. Their bytes differ
// by the dates and the order the renderer writes the fonts in.
func samePDF(a, b string) bool {
	streams := func(s string) []string {
		var out []string
		for _, m := range pdfStream.FindAllStringSubmatch(s, -1) {
			r, err := zlib.NewReader(strings.NewReader(m[1]))
			if err != nil {
				out = append(out, m[1])
				continue
			}
			b, _ := io.ReadAll(r)
			out = append(out, string(b))
		}
		slices.Sort(out)
		return out
	}
	sa := streams(a)
	return len(sa) > 0 && slices.Equal(sa, streams(b))
}

// testDocumentsRoles: every role reads every page, file and export.
func testDocumentsRoles(t *testing.T, site *Site) {
	docs := mustStories(t, site)
	d := docs["approved"].ENCF
	for _, role := range sello.Roles {
		email := string(role) + "@caribe.do"
		site.MustUser(t, email, role)
		b := site.NewBrowser(t)
		b.MustLogin(email)
		for _, path := range []string{"/portal/TesteCF/documentos", "/portal/TesteCF/documentos?estado=accepted",
			"/portal/TesteCF/documentos/" + d, "/portal/TesteCF/documentos/" + d + "/xml", "/portal/TesteCF/documentos/" + d + "/pdf",
			"/portal/TesteCF/documentos/exportar"} {
			if p := b.Get(path); p.StatusCode != http.StatusOK {
				t.Errorf("%s: GET %s: %d, want 200", role, path, p.StatusCode)
			}
		}
		if p := b.Get("/portal/TesteCF"); !strings.Contains(p.Body, `href="/portal/TesteCF/documentos"`) {
			t.Errorf("%s: the menu has no Documentos", role)
		}
	}
	// Without a session: the login.
	anon := site.NewBrowser(t)
	for _, path := range []string{"/portal/TesteCF/documentos", "/portal/TesteCF/documentos/" + d + "/xml", "/portal/TesteCF/documentos/exportar"} {
		if p := anon.Get(path); p.StatusCode != http.StatusSeeOther || !strings.HasPrefix(p.Location(), "/portal/entrar") {
			t.Errorf("GET %s without a session: %d to %q, want the login", path, p.StatusCode, p.Location())
		}
	}
}

// testDocumentsOtherTenant: another company's documents, and the
// company's documents of another environment, are not found (404) by any
// page or file, and no list shows them.
func testDocumentsOtherTenant(t *testing.T, site *Site) {
	docs := mustStories(t, site)
	ctx := context.Background()
	other := &sello.Tenant{RNC: "130000002", Name: "Otra Empresa SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(ctx, other); err != nil {
		t.Fatal(err)
	}
	os := &docseed.Seeder{Store: site.Store, Tenant: other, Env: sello.EnvTest}
	var theirs *sello.Document
	for range len(docs) + 3 {
		theirs = os.Issue(t, docseed.Story{Buyer: "40200000009"})
	}
	// Numbers are per environment: the company's 12th type-31 document of
	// CerteCF has an e-NCF that TesteCF (8 of type 31) does not.
	cs := &docseed.Seeder{Store: site.Store, Tenant: site.Tenant, Env: sello.EnvCert}
	var onlyCert *sello.Document
	for range 12 {
		onlyCert = cs.Issue(t, docseed.Story{Buyer: "40200000009", Status: sello.StatusSigned})
	}
	if _, err := site.Store.FindDocument(ctx, site.Tenant.ID, sello.EnvTest, onlyCert.ENCF); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Fatalf("%s is in TesteCF too: %v", onlyCert.ENCF, err)
	}
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUserIn(t, "luis@otra.do", sello.RoleOwner, other)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	for _, path := range []string{"", "/xml", "/pdf"} {
		wantStatus(t, b.Get("/portal/TesteCF/documentos/"+theirs.ENCF+path), http.StatusNotFound)
		wantStatus(t, b.Get("/portal/TesteCF/documentos/"+onlyCert.ENCF+path), http.StatusNotFound)
	}
	if p := b.Get("/portal/TesteCF/documentos?comprador=40200000009"); len(listed(p)) != 0 {
		t.Errorf("the list shows another company's or environment's documents: %v", listed(p))
	}
	if _, rows := exportCSV(t, b, url.Values{"comprador": {"40200000009"}}); len(rows) != 1 {
		t.Errorf("the export has another company's or environment's documents: %q", rows)
	}
	if p := b.Get("/portal/CerteCF/documentos?comprador=40200000009"); len(listed(p)) != 12 {
		t.Errorf("CerteCF lists %d documents, want its 12", len(listed(p)))
	}
	// Their owner sees theirs, not ours.
	theirBrowser := site.NewBrowser(t)
	theirBrowser.MustLogin("luis@otra.do")
	p := theirBrowser.Get("/portal/TesteCF/documentos?comprador=131880681")
	if len(listed(p)) != 0 {
		t.Errorf("another company lists our documents: %v", listed(p))
	}
	wantStatus(t, theirBrowser.Get("/portal/TesteCF/documentos/"+theirs.ENCF), http.StatusOK)
}

// mustAPI serves the API on the site's store and gives the site's tenant
// a TesteCF key that reads: its address and the key.
func mustAPI(tb testing.TB, site *Site) (string, string) {
	tb.Helper()
	srv := httptest.NewServer((&api.Server{Store: site.Store, MasterKey: site.Server.MasterKey}).Handler())
	tb.Cleanup(srv.Close)
	k, plain := sello.NewAPIKey(site.Tenant.ID, sello.EnvTest, "contabilidad", []sello.Scope{sello.ScopeRead}, nil)
	if err := site.Store.CreateAPIKey(tb.Context(), k); err != nil {
		tb.Fatal(err)
	}
	return srv.URL, plain
}

// apiList reads every page of GET /TesteCF/documentos-ecf?query, limit
// pages at a time, as raw JSON documents.
func apiList(tb testing.TB, base, key string, query url.Values, limit int) []map[string]any {
	tb.Helper()
	var out []map[string]any
	query.Set("limit", fmt.Sprint(limit))
	for {
		req, _ := http.NewRequest("GET", base+"/TesteCF/documentos-ecf?"+query.Encode(), nil)
		req.Header.Set("X-API-KEY", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Data       []map[string]any
			NextCursor *string
		}
		dec := json.NewDecoder(resp.Body)
		dec.UseNumber()
		err = dec.Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatalf("API list %s: %d %v", query.Encode(), resp.StatusCode, err)
		}
		out = append(out, page.Data...)
		if page.NextCursor == nil {
			return out
		}
		query.Set("cursor", *page.NextCursor)
	}
}

// exportCSV reads the portal's CSV export of the list filtered by query.
func exportCSV(tb testing.TB, b *Browser, query url.Values) (*Page, [][]string) {
	tb.Helper()
	p := b.Get("/portal/TesteCF/documentos/exportar?" + query.Encode())
	wantStatus(tb, p, http.StatusOK)
	if !strings.HasPrefix(p.Body, "\uFEFF") {
		tb.Fatalf("the CSV does not start with a byte order mark: %q", p.Body[:min(20, len(p.Body))])
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(p.Body, "\uFEFF")))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		tb.Fatalf("CSV: %v", err)
	}
	return p, rows
}

// apiColumns are the leaf fields of the OpenAPI document's Document
// schema, as dotted JSON paths in the schema's order: a nested object's
// fields each, a list one.
func apiColumns(tb testing.TB) []string {
	tb.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
		tb.Fatal(err)
	}
	type schema struct {
		Ref        string `json:"$ref"`
		AnyOf      []json.RawMessage
		OneOf      []json.RawMessage
		Properties json.RawMessage
	}
	// resolve follows $ref, and anyOf's or oneOf's alternative that is
	// not null.
	var resolve func(raw json.RawMessage) schema
	resolve = func(raw json.RawMessage) schema {
		var s schema
		if err := json.Unmarshal(raw, &s); err != nil {
			tb.Fatal(err)
		}
		if s.Ref != "" {
			return resolve(doc.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")])
		}
		for _, alt := range append(s.AnyOf, s.OneOf...) {
			if !strings.Contains(string(alt), `"null"`) {
				return resolve(alt)
			}
		}
		return s
	}
	var cols []string
	var walk func(prefix string, raw json.RawMessage)
	walk = func(prefix string, raw json.RawMessage) {
		s := resolve(raw)
		if len(s.Properties) == 0 {
			cols = append(cols, prefix)
			return
		}
		// The properties in the order the document writes them.
		dec := json.NewDecoder(bytes.NewReader(s.Properties))
		dec.Token() // {
		for dec.More() {
			tok, _ := dec.Token()
			var prop json.RawMessage
			if err := dec.Decode(&prop); err != nil {
				tb.Fatal(err)
			}
			name := tok.(string)
			if prefix != "" {
				name = prefix + "." + name
			}
			walk(name, prop)
		}
	}
	walk("", doc.Components.Schemas["Document"])
	return cols
}

// apiCell is an API value as the export writes it: null empty, a text as
// it is but for a leading ' before what a spreadsheet would take for a
// formula, any other value its JSON.
func apiCell(tb testing.TB, v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
			return "'" + v
		}
		return v
	case bool:
		return fmt.Sprint(v)
	case json.Number:
		return v.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// lookup is the value at a dotted path of a JSON document; nil past a
// null.
func lookup(doc map[string]any, path string) any {
	var cur any = doc
	for _, name := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[name]
	}
	return cur
}

// sameJSON reports whether two JSON texts are one value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// testDocumentsCSV: the export of a filter is the API's list of the same
// filter: the same documents in the same order, each column the API's
// value (the columns are the Document schema's fields), across the
// export's pages of 200.
func testDocumentsCSV(t *testing.T, site *Site) {
	docs := mustStories(t, site)
	s := &docseed.Seeder{Store: site.Store, Tenant: site.Tenant, Env: sello.EnvTest}
	for range 205 {
		s.Issue(t, docseed.Story{Status: sello.StatusQueuedForSigning, Buyer: "40200000009"})
	}
	base, key := mustAPI(t, site)
	site.MustUser(t, "dueno@caribe.do", sello.RoleOwner)
	site.MustUser(t, "ana@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	cols := apiColumns(t)
	day := time.Now().In(sello.DRZone)
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, sello.DRZone)
	for _, tt := range []struct {
		name        string
		portal, api url.Values
		want        int
	}{
		{"Everything", url.Values{}, url.Values{}, len(docs) + 205},
		{"Accepted", url.Values{"estado": {"accepted"}}, url.Values{"status": {"accepted"}}, 4},
		{"BuyerAndType", url.Values{"comprador": {"131-88068-1"}, "tipo": {"E31"}}, url.Values{"buyer": {"131880681"}, "type": {"E31"}}, 7},
		{"ENCF", url.Values{"encf": {docs["disputed"].ENCF}}, url.Values{"encf": {docs["disputed"].ENCF}}, 1},
		{"Today", url.Values{"desde": {start.Format("2006-01-02")}, "hasta": {start.Format("2006-01-02")}},
			url.Values{"from": {start.UTC().Format(time.RFC3339)}, "to": {start.AddDate(0, 0, 1).UTC().Format(time.RFC3339)}}, len(docs) + 205},
		{"Queued", url.Values{"estado": {"queued_for_signing"}, "comprador": {"40200000009"}}, url.Values{"status": {"queued_for_signing"}, "buyer": {"40200000009"}}, 205},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, rows := exportCSV(t, b, tt.portal)
			if ct := p.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if cd := p.Header.Get("Content-Disposition"); !regexp.MustCompile(`^attachment; filename="documentos-TesteCF-\d{4}-\d\d-\d\d-\d{4}\.csv"$`).MatchString(cd) {
				t.Errorf("Content-Disposition %q", cd)
			}
			if !strings.Contains(p.Body, "\r\n") {
				t.Errorf("lines do not end in CRLF")
			}
			if !slices.Equal(rows[0], cols) {
				t.Fatalf("header:\n%q\nwant the API's fields:\n%q", rows[0], cols)
			}
			want := apiList(t, base, key, tt.api, 7)
			if len(want) != tt.want || len(rows)-1 != len(want) {
				t.Fatalf("%d rows, the API lists %d, want %d", len(rows)-1, len(want), tt.want)
			}
			for i, doc := range want {
				row := rows[i+1]
				for j, col := range cols {
					v := apiCell(t, lookup(doc, col))
					if row[j] != v && !(strings.HasPrefix(v, "[") && sameJSON(row[j], v)) {
						t.Errorf("row %d (%s) %s: %q, the API says %q", i+1, doc["encf"], col, row[j], v)
					}
				}
			}
		})
	}
	// The buyer's formula arrives as text.
	_, rows := exportCSV(t, b, url.Values{"encf": {docs["disputed"].ENCF}})
	verdicts := rows[1][slices.Index(cols, "commercialApproval.verdicts")]
	if !strings.Contains(verdicts, `=HYPERLINK`) || rows[1][slices.Index(cols, "commercialApproval.status")] != "disputed" {
		t.Errorf("disputed: %q", rows[1])
	}
	// The buyer's RNC, empty for the consumption invoice without one.
	for name, want := range map[string]string{"otherBuyer": "101000001", "approved": "131880681", "consumo": ""} {
		_, rows := exportCSV(t, b, url.Values{"encf": {docs[name].ENCF}})
		if got := rows[1][slices.Index(cols, "buyerRnc")]; got != want {
			t.Errorf("%s: buyerRnc %q, want %q", name, got, want)
		}
	}
	// A refused filter is the page with its messages.
	p := b.Get("/portal/TesteCF/documentos/exportar?comprador=12")
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "El RNC o la cédula del comprador tiene 9 u 11 dígitos.")
}

// testDocumentsCSVBounded: past the bound, the export stops and its last
// line says so.
func testDocumentsCSVBounded(t *testing.T, site *Site) {
	s := &docseed.Seeder{Store: site.Store, Tenant: site.Tenant, Env: sello.EnvTest}
	for range 6 {
		s.Issue(t, docseed.Story{Status: sello.StatusQueuedForSigning})
	}
	portal.SetCSVMaxRows(t, 4)
	site.MustUser(t, "dueno@caribe.do", sello.RoleOwner)
	site.MustUser(t, "ana@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	_, rows := exportCSV(t, b, url.Values{})
	if len(rows) != 6 || len(rows[5]) != 1 || !strings.Contains(rows[5][0], "La exportación se detuvo en 4 documentos") {
		t.Fatalf("bounded export: %d rows, last %q", len(rows), rows[len(rows)-1])
	}
	_, rows = exportCSV(t, b, url.Values{"encf": {"E310000000001"}})
	if len(rows) != 2 {
		t.Errorf("an export under the bound: %d rows, want the header and one", len(rows))
	}
}
