package api_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/storetest"
)

// unknownRNC is a well-formed RNC that is no tenant's.
const unknownRNC = "131999999"

// receptorAt is receptor's path at rnc.
func receptorAt(env sello.Environment, rnc, service string) string {
	return strings.Replace(receptor(env, service), "/receptor/"+testRNC+"/", "/receptor/"+rnc+"/", 1)
}

// from sends req from the client address addr ("host:port") with headers
// (name, value pairs).
func (f *receiverFixture) from(req *http.Request, addr string, headers ...string) *httptest.ResponseRecorder {
	req.RemoteAddr = addr
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

// semillaFrom asks for a seed at rnc in TesteCF from addr.
func (f *receiverFixture) semillaFrom(rnc, addr string, headers ...string) *httptest.ResponseRecorder {
	return f.from(httptest.NewRequest("GET", receptorAt(sello.EnvTest, rnc, "autenticacion/api/semilla"), nil), addr, headers...)
}

// limited makes f's receiver count calls under perAddress and perTenant
// on a limiter on f's clock.
func (f *receiverFixture) limited(perAddress, perTenant sello.RatePlan, proxies ...netip.Prefix) *receiverFixture {
	limiter := sello.NewMemoryRateLimiter()
	limiter.Now = f.clock.Now
	return f.with(func(s *api.Server) {
		s.ReceiverLimits = &sello.ReceiverLimits{PerAddress: perAddress, PerTenant: perTenant, Timeout: time.Minute}
		s.RateLimiter, s.TrustedProxies = limiter, proxies
	})
}

// want429 checks that rec is 429 RATE_LIMITED with Retry-After of retry
// seconds and the message's words.
func want429(tb testing.TB, rec *httptest.ResponseRecorder, retry int, words ...string) {
	tb.Helper()
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), `"code":"RATE_LIMITED"`) {
		tb.Fatalf("got %d %s, want 429 RATE_LIMITED", rec.Code, rec.Body)
	}
	if got := rec.Header().Get("Retry-After"); got != strconv.Itoa(retry) {
		tb.Errorf("Retry-After %q, want %d", got, retry)
	}
	for _, w := range words {
		if !strings.Contains(rec.Body.String(), w) {
			tb.Errorf("body %s: want %q in it", rec.Body, w)
		}
	}
}

func wantOK(tb testing.TB, what string, rec *httptest.ResponseRecorder) {
	tb.Helper()
	if rec.Code != http.StatusOK {
		tb.Fatalf("%s: got %d %s, want 200", what, rec.Code, rec.Body)
	}
}

var (
	roomy = sello.RatePlan{Name: "roomy", Rate: 1000, Burst: 1000}
	tight = sello.RatePlan{Name: "tight", Rate: 1, Burst: 2}
)

func TestReceiverRateLimits(t *testing.T) {
	const a, b = "192.0.2.1:1234", "198.51.100.7:4321"
	t.Run("PerAddress", func(t *testing.T) {
		f := mustReceiverFixture(t, true).limited(tight, roomy)
		wantOK(t, "first", f.semillaFrom(testRNC, a))
		wantOK(t, "second", f.semillaFrom(testRNC, a))
		want429(t, f.semillaFrom(testRNC, a), 1, "from your address", "1/s, 2 at once")
		// The address is counted at every receiver and every service.
		want429(t, f.semillaFrom(unknownRNC, a), 1)
		doc := f.signedECF(t, testRNC, 1)
		body, ct := upload(t, supplierRNC+"E310000000001.xml", doc)
		for _, service := range []string{"autenticacion/api/validacioncertificado", "recepcion", "aprobacioncomercial"} {
			req := httptest.NewRequest("POST", receptor(sello.EnvTest, service), bytes.NewReader(body))
			req.Header.Set("Content-Type", ct)
			want429(t, f.from(req, a), 1)
		}
		f.wantStored(t, sello.EnvTest, 1, false)
		// Another address is not.
		wantOK(t, "another address", f.semillaFrom(testRNC, b))
		// A second later, one more call.
		f.clock.Add(time.Second)
		wantOK(t, "a second later", f.semillaFrom(testRNC, a))
		want429(t, f.semillaFrom(testRNC, a), 1)
	})
	t.Run("PerTenant", func(t *testing.T) {
		f := mustReceiverFixture(t, true).limited(roomy, tight)
		wantOK(t, "first", f.semillaFrom(testRNC, a))
		wantOK(t, "second", f.semillaFrom(testRNC, b))
		want429(t, f.semillaFrom(testRNC, "203.0.113.9:1"), 1, "to this receiver")
		// Another receiver is not; an RNC that is no tenant's is counted
		// as a tenant's.
		wantOK(t, "another receiver", f.semillaFrom(unknownRNC, a))
		wantOK(t, "another receiver", f.semillaFrom(unknownRNC, a))
		want429(t, f.semillaFrom(unknownRNC, b), 1, "to this receiver")
		// The tenant's receiver in another environment is another receiver.
		eCF := httptest.NewRequest("GET", receptor(sello.EnvProd, "autenticacion/api/semilla"), nil)
		wantOK(t, "the tenant's eCF receiver", f.from(eCF, a))
	})
	t.Run("ForwardedFor", func(t *testing.T) {
		one := sello.RatePlan{Name: "one", Rate: 1, Burst: 1}
		const proxy = "10.0.0.5:40000"
		// Without a trusted proxy, X-Forwarded-For is what anyone writes:
		// the connection's address counts.
		f := mustReceiverFixture(t, true).limited(one, roomy)
		wantOK(t, "first", f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "192.0.2.1"))
		want429(t, f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "192.0.2.2"), 1)

		// Behind a trusted proxy, the address it saw counts: the right-most
		// of the header that is not a trusted proxy.
		f = mustReceiverFixture(t, true).limited(one, roomy, netip.MustParsePrefix("10.0.0.0/24"))
		wantOK(t, "client 1", f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "192.0.2.1"))
		wantOK(t, "client 2", f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "192.0.2.2"))
		want429(t, f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "192.0.2.1"), 1)
		// A client's own left part changes nothing; a chain of trusted
		// proxies is walked through.
		want429(t, f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "203.0.113.50, 192.0.2.2"), 1)
		wantOK(t, "client 3 through two proxies", f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "192.0.2.3", "X-Forwarded-For", "10.0.0.9"))
		want429(t, f.semillaFrom(testRNC, proxy, "X-Forwarded-For", "spoofed, 192.0.2.3, 10.0.0.9"), 1)
		// A call that is not from a trusted proxy counts under its own
		// address, whatever it forwards.
		wantOK(t, "direct", f.semillaFrom(testRNC, "192.0.2.4:1", "X-Forwarded-For", "192.0.2.1"))
	})
	t.Run("IPv6Prefix", func(t *testing.T) {
		one := sello.RatePlan{Name: "one", Rate: 1, Burst: 1}
		f := mustReceiverFixture(t, true).limited(one, roomy)
		wantOK(t, "first", f.semillaFrom(testRNC, "[2001:db8::1]:1"))
		want429(t, f.semillaFrom(testRNC, "[2001:db8::ffff]:1"), 1)
		wantOK(t, "another /64", f.semillaFrom(testRNC, "[2001:db8:0:1::1]:1"))
	})
}

// countRows counts the rows of table in st.
func countRows(tb testing.TB, st sello.Store, table string) int {
	tb.Helper()
	var n int
	var err error
	switch db := st.(type) {
	case *sqlite.DB:
		err = db.SQL().QueryRow("SELECT count(*) FROM " + table).Scan(&n)
	case *postgres.DB:
		err = db.Pool().QueryRow(tb.Context(), "SELECT count(*) FROM "+table).Scan(&n)
	default:
		tb.Fatalf("countRows: a %T", st)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestSeedFloodStoresNothing: semilla, and a validacioncertificado that is
// refused, store nothing, on either engine; only a seed redeemed is
// recorded, once, with its token.
func TestSeedFloodStoresNothing(t *testing.T) {
	run := func(t *testing.T, st sello.Store) {
		f := mustReceiverFixtureOn(t, st, false)
		tables := []string{"receiver_seeds", "receiver_tokens", "inbound_documents"}
		count := func() []int {
			var n []int
			for _, table := range tables {
				n = append(n, countRows(t, st, table))
			}
			return n
		}
		before := count()
		for i := range 200 {
			wantOK(t, "semilla", f.semillaFrom(testRNC, fmt.Sprintf("192.0.2.%d:1", i%250)))
		}
		validate := func(signed []byte) *httptest.ResponseRecorder {
			body, ct := upload(t, "semilla.xml", signed)
			return f.raw(receptor(sello.EnvTest, "autenticacion/api/validacioncertificado"), "", ct, body)
		}
		for range 20 {
			signed := f.signedSeed(t, testRNC)
			tampered := bytes.Replace(signed, []byte("<SignatureValue>"), []byte("<SignatureValue>AAAA"), 1)
			wantStatus(t, validate(tampered), 401, "signature")
			wantStatus(t, validate(f.signedSeed(t, unknownRNC)), 401)
		}
		if after := count(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("rows of %v: %v before 200 semillas and 40 refused seeds, %v after; want no change", tables, before, after)
		}
		wantOK(t, "validacioncertificado", validate(f.signedSeed(t, testRNC)))
		if after := count(); after[0] != before[0]+1 || after[1] != before[1]+1 {
			t.Fatalf("rows of %v: %v before, %v after a token; want one seed and one token more", tables, before, after)
		}
	}
	forEachEngine(t, run)
}

// forEachEngine runs run on a new SQLite store and a new PostgreSQL schema
// (skipped without SELLO_TEST_DATABASE_URL).
func forEachEngine(t *testing.T, run func(t *testing.T, st sello.Store)) {
	t.Run("SQLite", func(t *testing.T) {
		db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "sello.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		run(t, db)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		run(t, db)
	})
}

// signedSeed is a seed of the receiver at rnc in TesteCF, signed by the
// supplier as issued.
func (f *receiverFixture) signedSeed(tb testing.TB, rnc string) []byte {
	tb.Helper()
	rec := f.semillaFrom(rnc, "192.0.2.1:1")
	wantOK(tb, "semilla", rec)
	signed, err := f.supplier.Sign(rec.Body.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return signed
}

// TestSeedAsIssued: the signed SemillaModel must be the one issued, valor
// and fecha, with its namespaces (DT16 p.60), else no token.
func TestSeedAsIssued(t *testing.T) {
	f := mustReceiverFixture(t, false)
	validate := func(t *testing.T, edit func(seed string) string) *httptest.ResponseRecorder {
		t.Helper()
		rec := f.semillaFrom(testRNC, "192.0.2.1:1")
		wantOK(t, "semilla", rec)
		signed, err := f.supplier.Sign([]byte(edit(rec.Body.String())))
		if err != nil {
			t.Fatal(err)
		}
		body, ct := upload(t, "semilla.xml", signed)
		return f.raw(receptor(sello.EnvTest, "autenticacion/api/validacioncertificado"), "", ct, body)
	}
	cut := func(seed, from, to string) string {
		i, j := strings.Index(seed, from), strings.Index(seed, to)
		return seed[:i] + seed[j+len(to):]
	}
	fecha := func(seed string) string {
		i, j := strings.Index(seed, "<fecha>"), strings.Index(seed, "</fecha>")
		return seed[i+len("<fecha>") : j]
	}
	wantOK(t, "as issued", validate(t, func(s string) string { return s }))
	for _, c := range []struct {
		name   string
		edit   func(string) string
		status int
		words  []string
	}{
		{"ErrNoFecha", func(s string) string { return cut(s, "<fecha>", "</fecha>") }, 400, []string{"where", "fecha", "was issued"}},
		{"ErrNoNamespaces", func(s string) string {
			return strings.Replace(s, ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"`, "", 1)
		}, 400, []string{"namespace declarations"}},
		{"ErrOtherNamespace", func(s string) string {
			return strings.Replace(s, `<SemillaModel `, `<SemillaModel xmlns="urn:x" `, 1)
		}, 400, []string{"urn:x"}},
		{"ErrExtraElement", func(s string) string {
			return strings.Replace(s, "</fecha>", "</fecha><otro>1</otro>", 1)
		}, 400, []string{"otro"}},
		{"ErrFechaRewritten", func(s string) string {
			// The same instant, written in UTC.
			at, err := time.Parse("2006-01-02T15:04:05.0000000-07:00", fecha(s))
			if err != nil {
				t.Fatal(err)
			}
			return strings.Replace(s, fecha(s), at.UTC().Format("2006-01-02T15:04:05.0000000Z07:00"), 1)
		}, 400, []string{"is not written as issued"}},
		{"ErrFechaChanged", func(s string) string {
			at, err := time.Parse("2006-01-02T15:04:05.0000000-07:00", fecha(s))
			if err != nil {
				t.Fatal(err)
			}
			return strings.Replace(s, fecha(s), at.Add(time.Second).Format("2006-01-02T15:04:05.0000000-07:00"), 1)
		}, 401, []string{"not one this receiver issued"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := validate(t, c.edit)
			wantStatus(t, rec, c.status, c.words...)
		})
	}
}

// TestUnknownReceiver: an RNC that is no tenant's is answered as a
// tenant's, where DGII's contract lets it be: a seed at semilla (stored
// nowhere), a refused signer at validacioncertificado, a missing or bad
// token at reception and approval.
func TestUnknownReceiver(t *testing.T) {
	mustTrustKeys(t)
	f := mustReceiverFixture(t, false).trusting(testRoots(t))
	known, unknown := f.semillaFrom(testRNC, "192.0.2.1:1"), f.semillaFrom(unknownRNC, "192.0.2.1:1")
	wantOK(t, "semilla at an unknown RNC", unknown)
	valor := func(rec *httptest.ResponseRecorder) string {
		s := rec.Body.String()
		return s[strings.Index(s, "<valor>"):strings.Index(s, "</valor>")]
	}
	if known.Header().Get("Content-Type") != unknown.Header().Get("Content-Type") || len(valor(known)) != len(valor(unknown)) || len(known.Body.String()) != len(unknown.Body.String()) {
		t.Errorf("semilla: a tenant's\n%s\nand an unknown RNC's\n%s\ndiffer in shape", known.Body, unknown.Body)
	}
	if n := countRows(t, f.store, "receiver_seeds"); n != 0 {
		t.Errorf("%d seeds stored", n)
	}
	// The answers, but for their correlation ids, are the same.
	same := func(t *testing.T, what string, a, b *httptest.ResponseRecorder, status int) {
		t.Helper()
		strip := func(rec *httptest.ResponseRecorder) string {
			s := rec.Body.String()
			return s[:strings.Index(s, `"correlationId"`)]
		}
		if a.Code != status || b.Code != status || strip(a) != strip(b) {
			t.Errorf("%s: a tenant's %d %s and an unknown RNC's %d %s; want the same %d", what, a.Code, a.Body, b.Code, b.Body, status)
		}
	}
	// In eCF a stranger's seed is refused at the tenant's receiver (its
	// signer chains to no trust root); at an unknown RNC, any seed is, the
	// same way.
	validate := func(rnc string) *httptest.ResponseRecorder {
		rec := f.from(httptest.NewRequest("GET", receptorAt(sello.EnvProd, rnc, "autenticacion/api/semilla"), nil), "192.0.2.1:1")
		wantOK(t, "semilla", rec)
		signed, err := f.supplier.Sign(rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		body, ct := upload(t, "semilla.xml", signed)
		return f.raw(receptorAt(sello.EnvProd, rnc, "autenticacion/api/validacioncertificado"), "", ct, body)
	}
	same(t, "validacioncertificado", validate(testRNC), validate(unknownRNC), 401)
	doc := f.signedECF(t, testRNC, 1)
	for _, service := range []string{"recepcion", "aprobacioncomercial"} {
		for _, token := range []string{"", "made-up"} {
			post := func(rnc string) *httptest.ResponseRecorder {
				body, ct := upload(t, supplierRNC+"E310000000001.xml", doc)
				return f.raw(receptorAt(sello.EnvTest, rnc, service), token, ct, body)
			}
			same(t, service+" with token "+strconv.Quote(token), post(testRNC), post(unknownRNC), 401)
		}
	}
}

// TestIssuerQuota: past its quota of documents in 24 hours, an issuer's
// e-CF is answered 429 with Retry-After, not with an acuse (it was not
// judged), and not stored; a retry of a document received is still
// answered with its acuse; a document DGII accepted leaves the count; a
// day later the issuer is taken again.
func TestIssuerQuota(t *testing.T) {
	f := mustReceiverFixture(t, true).with(func(s *api.Server) {
		l := unlimitedReceivers
		l.IssuerQuota = 2
		s.ReceiverLimits = &l
	})
	// The retry below must be the same bytes: signing again would stamp a
	// new FechaHoraFirma once the second turns, and be another document.
	firstDoc := f.signedECF(t, testRNC, 1)
	first := f.post(t, recepcion, "", firstDoc)
	f.wantAcuse(t, first, ecf.ReceiptReceived, 0)
	f.wantAcuse(t, f.post(t, recepcion, "", f.signedECF(t, testRNC, 2)), ecf.ReceiptReceived, 0)
	third := f.signedECF(t, testRNC, 3)
	rec := f.post(t, recepcion, "", third)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), `"code":"RATE_LIMITED"`) || !strings.Contains(rec.Body.String(), "RNC "+supplierRNC) {
		t.Fatalf("over the quota: got %d %s, want 429 RATE_LIMITED naming the issuer", rec.Code, rec.Body)
	}
	if retry, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || retry < 86_000 || retry > 86_401 {
		t.Errorf("Retry-After %q, want about a day", rec.Header().Get("Retry-After"))
	}
	f.wantStored(t, sello.EnvTest, 3, false)
	if again := f.post(t, recepcion, "", firstDoc); !bytes.Equal(again.Body.Bytes(), first.Body.Bytes()) {
		t.Errorf("a retry over the quota: got %d %s, want the stored acuse", again.Code, again.Body)
	}
	// DGII's acceptance of a document frees its place: the quota counts
	// what DGII has not accepted.
	accepted := f.wantStored(t, sello.EnvTest, 1, true)
	if _, err := f.store.RecordInboundDGII(t.Context(), f.tenant.ID, sello.EnvTest, accepted.ID, sello.InboundDGIIAnswer{Codigo: 1, Estado: "Aceptado"}); err != nil {
		t.Fatal(err)
	}
	f.wantAcuse(t, f.post(t, recepcion, "", third), ecf.ReceiptReceived, 0)
	fourth := f.signedECF(t, testRNC, 4)
	if rec := f.post(t, recepcion, "", fourth); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("over the quota again: got %d %s, want 429", rec.Code, rec.Body)
	}
	// A day later the hours' counts still hold the hour the window's
	// start falls in; the exact count takes the issuer again.
	f.clock.Add(sello.IssuerQuotaWindow + time.Minute)
	f.wantAcuse(t, f.post(t, recepcion, "", fourth), ecf.ReceiptReceived, 0)
}

// TestENCFQuota: past its quota of different documents under one e-NCF
// that DGII has not confirmed, an issuer's e-CF under that e-NCF is
// answered 429 with Retry-After, naming the issuer and the e-NCF, before
// its signature is checked, and not stored; a retry of a document kept is
// still answered with its acuse; another e-NCF is taken; once DGII accepts
// one of them, another document under the e-NCF is judged (code 3).
func TestENCFQuota(t *testing.T) {
	f := mustReceiverFixture(t, true).with(func(s *api.Server) {
		l := unlimitedReceivers
		l.ENCFQuota = 2
		s.ReceiverLimits = &l
	})
	// Different documents under E310000000001: the buyer's name differs.
	variant := func(name string) []byte {
		doc, err := f.supplier.Sign(bytes.Replace(unsignedECF(t, testRNC, 1), []byte("Cliente Ejemplo SRL"), []byte(name), 1))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	firstDoc := variant("Cliente Ejemplo SA")
	first := f.post(t, recepcion, "", firstDoc)
	f.wantAcuse(t, first, ecf.ReceiptReceived, 0)
	f.wantAcuse(t, f.post(t, recepcion, "", variant("Cliente Ejemplo SAS")), ecf.ReceiptReceived, 0)
	third := variant("Cliente Ejemplo EIRL")
	for name, doc := range map[string][]byte{
		"over the quota": third,
		// Refused before its signature is looked at.
		"tampered, over the quota": bytes.Replace(third, []byte("Cliente Ejemplo EIRL"), []byte("Cliente Ejemplo XXXX"), 1),
	} {
		rec := f.post(t, recepcion, "", doc)
		body := rec.Body.String()
		if rec.Code != http.StatusTooManyRequests || !strings.Contains(body, `"code":"RATE_LIMITED"`) ||
			!strings.Contains(body, "e-NCF E310000000001 of RNC "+supplierRNC) || !strings.Contains(body, "2 documents") {
			t.Fatalf("%s: got %d %s, want 429 RATE_LIMITED naming the e-NCF and the issuer", name, rec.Code, body)
		}
		if retry, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || retry < int(sello.ENCFQuotaWindow.Seconds())-120 || retry > int(sello.ENCFQuotaWindow.Seconds())+1 {
			t.Errorf("%s: Retry-After %q, want about %s (until the first leaves the window)", name, rec.Header().Get("Retry-After"), sello.ENCFQuotaWindow)
		}
	}
	if docs := f.inboundUnder(t, sello.EnvTest, "E310000000001"); len(docs) != 2 {
		t.Fatalf("stored %d documents under E310000000001, want 2", len(docs))
	}
	if again := f.post(t, recepcion, "", firstDoc); !bytes.Equal(again.Body.Bytes(), first.Body.Bytes()) {
		t.Errorf("a retry at the quota: got %d %s, want the stored acuse", again.Code, again.Body)
	}
	f.wantAcuse(t, f.post(t, recepcion, "", f.signedECF(t, testRNC, 2)), ecf.ReceiptReceived, 0)

	kept := f.inboundUnder(t, sello.EnvTest, "E310000000001")
	storetest.MustRecordDGII(t, f.store, f.tenant.ID, sello.EnvTest, kept[1].ID, 1, "Aceptado")
	f.wantAcuse(t, f.post(t, recepcion, "", third), ecf.ReceiptNotReceived, ecf.ReasonDuplicate)
}

// TestReceiverDeadline: a call past its deadline signs and stores nothing,
// and one whose body does not come in time is answered when the deadline
// passes, not when the body would have ended.
func TestReceiverDeadline(t *testing.T) {
	t.Run("Expired", func(t *testing.T) {
		f := mustReceiverFixture(t, true).with(func(s *api.Server) {
			l := unlimitedReceivers
			l.Timeout = time.Nanosecond
			s.ReceiverLimits = &l
		})
		wantStatus(t, f.post(t, recepcion, "", f.signedECF(t, testRNC, 1)), 503, "could not answer in time")
		f.wantStored(t, sello.EnvTest, 1, false)
		doc := f.issuedDocument(t, 1)
		wantStatus(t, f.postApproval(t, aprobacion, "", f.acecf(t, doc, "", nil)), 503, "could not answer in time")
		body, ct := upload(t, "semilla.xml", f.signedSeed(t, testRNC))
		wantStatus(t, f.raw(receptor(sello.EnvTest, "autenticacion/api/validacioncertificado"), "", ct, body), 503)
		if n := countRows(t, f.store, "receiver_tokens"); n != 0 {
			t.Errorf("%d tokens stored past the deadline", n)
		}
	})
	t.Run("SlowBody", func(t *testing.T) {
		f := mustReceiverFixture(t, true).with(func(s *api.Server) {
			l := unlimitedReceivers
			l.Timeout = 300 * time.Millisecond
			s.ReceiverLimits = &l
		})
		srv := httptest.NewServer(f.handler)
		defer srv.Close()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// The headers and the start of a body that never ends.
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n--b\r\nContent-Disposition: form-data; name=\"xml\"; filename=\"x.xml\"\r\n\r\n<ECF>", recepcion)
		start := time.Now()
		conn.SetReadDeadline(start.Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer within 5 s of a stalled body: %v", err)
		}
		resp.Body.Close()
		if took := time.Since(start); resp.StatusCode != http.StatusBadRequest || took > 3*time.Second {
			t.Errorf("got %d after %s, want 400 soon after the 300 ms deadline", resp.StatusCode, took)
		}
	})
}
