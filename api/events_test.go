package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
)

// eventList is the body of GET /{env}/eventos.
type eventList struct {
	OK            bool                  `json:"ok"`
	Events        []sello.EventResource `json:"data"`
	Next          *string               `json:"nextCursor"`
	HasMore       *bool                 `json:"hasMore"`
	CorrelationID string                `json:"correlationId"`
}

// mustKey stores a key of the tenant with scopes in env and returns it.
func mustKey(tb testing.TB, f *fixture, tenantID string, env sello.Environment, scopes ...sello.Scope) string {
	tb.Helper()
	k, plaintext := sello.NewAPIKey(tenantID, env, "test", scopes, nil)
	if err := f.store.CreateAPIKey(context.Background(), k); err != nil {
		tb.Fatal(err)
	}
	return plaintext
}

// mustTenant stores another tenant with a type-31 range in env and a key of
// every scope there.
func mustTenant(tb testing.TB, f *fixture, rnc string, env sello.Environment) (*sello.Tenant, string) {
	tb.Helper()
	ctx := context.Background()
	t := &sello.Tenant{RNC: rnc, Name: "Otra SRL", Plan: sello.RatePlan{Name: "bench", Rate: 1e9, Burst: 1e9}}
	if err := f.store.CreateTenant(ctx, t); err != nil {
		tb.Fatal(err)
	}
	mustSequence(tb, f, t.ID, env)
	return t, mustKey(tb, f, t.ID, env, sello.Scopes...)
}

func mustSequence(tb testing.TB, f *fixture, tenantID string, env sello.Environment) {
	tb.Helper()
	expires := sello.Date{Year: 2099, Month: 12, Day: 31}
	if err := f.store.AddSequence(context.Background(), &sello.Sequence{TenantID: tenantID, Environment: env, Type: "31", From: 1, To: 9_000_000_000, ExpiresOn: &expires}); err != nil {
		tb.Fatal(err)
	}
}

// call serves one request with key, checks the answer against the OpenAPI
// document and returns it.
func call(tb testing.TB, f *fixture, key, method, path string, body []byte) (*http.Response, []byte) {
	tb.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(string(body)))
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	resp := rec.Result()
	apitest.NewContract(tb).CheckResponse(tb, req, body, resp, rec.Body.Bytes())
	return resp, rec.Body.Bytes()
}

// create posts a type-31 invoice of rnc with key in env and returns the
// document.
func create(tb testing.TB, f *fixture, key string, env sello.Environment, rnc string) sello.DocumentResource {
	tb.Helper()
	resp, body := call(tb, f, key, "POST", "/"+string(env)+"/documentos-ecf", apitest.Invoice(rnc))
	if resp.StatusCode != http.StatusAccepted {
		tb.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	var r struct{ Document sello.DocumentResource }
	if err := json.Unmarshal(body, &r); err != nil {
		tb.Fatal(err)
	}
	return r.Document
}

// listEvents asks GET /{env}/eventos with query and decodes a 200.
func listEvents(tb testing.TB, f *fixture, key string, env sello.Environment, query string) eventList {
	tb.Helper()
	path := "/" + string(env) + "/eventos"
	if query != "" {
		path += "?" + query
	}
	resp, body := call(tb, f, key, "GET", path, nil)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	var l eventList
	if err := json.Unmarshal(body, &l); err != nil {
		tb.Fatal(err)
	}
	if !l.OK || l.Next == nil || *l.Next == "" || l.HasMore == nil || l.Events == nil {
		tb.Fatalf("GET %s: body lacks ok, nextCursor, hasMore or data: %s", path, body)
	}
	if got, want := l.CorrelationID, resp.Header.Get("X-Correlation-Id"); got != want || got == "" {
		tb.Fatalf("correlationId %q, header %q", got, want)
	}
	return l
}

// signed moves a document to signed, writing its ecf.signed event.
func signed(tb testing.TB, f *fixture, tenantID string, env sello.Environment, docID string) {
	tb.Helper()
	if _, err := f.db.UpdateDocument(context.Background(), tenantID, env, docID, sello.DocumentChange{
		Status: sello.StatusSigned, EventType: sello.EventECFSigned, Message: "Signed.",
	}); err != nil {
		tb.Fatal(err)
	}
}

func describeEvents(events []sello.EventResource) string {
	var s []string
	for _, e := range events {
		encf := ""
		if e.Document != nil {
			encf = e.Document.ENCF
		}
		s = append(s, string(e.Type)+" "+encf)
	}
	return strings.Join(s, ", ")
}

func TestListEvents(t *testing.T) {
	f := mustFixture(t)
	d1 := create(t, f, f.key, sello.EnvTest, testRNC)
	create(t, f, f.key, sello.EnvTest, testRNC)
	create(t, f, f.key, sello.EnvTest, testRNC)
	signed(t, f, f.tenant.ID, sello.EnvTest, d1.ID)
	wantOrder := "ecf.queued E310000000001, ecf.queued E310000000002, ecf.queued E310000000003, ecf.signed E310000000001"

	t.Run("OK", func(t *testing.T) {
		l := listEvents(t, f, f.key, sello.EnvTest, "")
		if got := describeEvents(l.Events); got != wantOrder {
			t.Fatalf("events %s, want %s", got, wantOrder)
		}
		if *l.HasMore {
			t.Error("hasMore = true with every event listed")
		}
		// Each event is exactly its webhook body.
		stored, err := f.db.ListEvents(t.Context(), f.tenant.ID, sello.EnvTest, sello.EventFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range l.Events {
			want, _ := json.Marshal(stored[i].Resource())
			got, _ := json.Marshal(e)
			if string(got) != string(want) {
				t.Errorf("event %d:\n got %s\nwant %s", i, got, want)
			}
			apitest.NewContract(t).CheckEventBody(t, got)
		}
		if e := l.Events[3]; e.Document.Status != sello.StatusSigned || e.Environment != "testecf" || e.TenantID != f.tenant.ID {
			t.Errorf("last event %+v", e)
		}
	})

	t.Run("Paging", func(t *testing.T) {
		var all []sello.EventResource
		after := ""
		for page := 0; ; page++ {
			if page > 10 {
				t.Fatal("paging does not end")
			}
			q := "limit=1"
			if after != "" {
				q += "&cursor=" + url.QueryEscape(after)
			}
			l := listEvents(t, f, f.key, sello.EnvTest, q)
			if len(l.Events) != 1 {
				t.Fatalf("page %d: %d events, want 1", page, len(l.Events))
			}
			all = append(all, l.Events...)
			after = *l.Next
			if want := page < 3; *l.HasMore != want {
				t.Fatalf("page %d: hasMore %v, want %v", page, *l.HasMore, want)
			}
			if !*l.HasMore {
				break
			}
		}
		if got := describeEvents(all); got != wantOrder {
			t.Fatalf("paged events %s, want %s", got, wantOrder)
		}

		// At the end, nextCursor keeps the poller's place: a feed can
		// always continue.
		l := listEvents(t, f, f.key, sello.EnvTest, "cursor="+url.QueryEscape(after))
		if len(l.Events) != 0 || *l.HasMore || *l.Next != after {
			t.Fatalf("after the last event: %d events, hasMore %v, next %q; want none, false, %q", len(l.Events), *l.HasMore, *l.Next, after)
		}
		// A new event shows up at the kept place, alone.
		create(t, f, f.key, sello.EnvTest, testRNC)
		l = listEvents(t, f, f.key, sello.EnvTest, "after="+url.QueryEscape(after))
		if got, want := describeEvents(l.Events), "ecf.queued E310000000004"; got != want {
			t.Fatalf("after a new event: %s, want %s", got, want)
		}
		if *l.Next == after {
			t.Fatal("next did not move past the new event")
		}
	})

	t.Run("Cursor", func(t *testing.T) {
		l := listEvents(t, f, f.key, sello.EnvTest, "limit=2")
		b, err := base64.RawURLEncoding.DecodeString(*l.Next)
		if err != nil {
			t.Fatalf("next %q: %v", *l.Next, err)
		}
		// SQLite's events are all at transaction 0.
		seq, ok := strings.CutPrefix(string(b), "ev.0.")
		if !ok {
			t.Fatalf("next %q decodes to %q, want ev.0.<seq>", *l.Next, b)
		}
		want := describeEvents(listEvents(t, f, f.key, sello.EnvTest, "cursor="+url.QueryEscape(*l.Next)).Events)
		if !strings.HasPrefix(describeEvents(l.Events)+", "+want, wantOrder) {
			t.Fatalf("after the first two events: %s; want the rest of %s", want, wantOrder)
		}
		// after is the spec's name for the same cursor.
		if got := describeEvents(listEvents(t, f, f.key, sello.EnvTest, "after="+url.QueryEscape(*l.Next)).Events); got != want {
			t.Fatalf("after= the first two events: %s, want %s as with cursor=", got, want)
		}
		// A cursor of the earlier form ev.<seq> is at transaction 0.
		old := base64.RawURLEncoding.EncodeToString([]byte("ev." + seq))
		if got := describeEvents(listEvents(t, f, f.key, sello.EnvTest, "after="+old).Events); got != want {
			t.Fatalf("after the old cursor ev.%s: %s, want %s", seq, got, want)
		}
		// A later transaction comes after every event at transaction 0.
		later := base64.RawURLEncoding.EncodeToString([]byte("ev.1.0"))
		if l := listEvents(t, f, f.key, sello.EnvTest, "after="+later); len(l.Events) != 0 {
			t.Fatalf("after ev.1.0: %s, want none", describeEvents(l.Events))
		}
	})

	t.Run("EmptyStartHasCursor", func(t *testing.T) {
		_, key := mustTenant(t, f, "130000009", sello.EnvTest)
		l := listEvents(t, f, key, sello.EnvTest, "")
		if len(l.Events) != 0 || *l.HasMore {
			t.Fatalf("new tenant: %d events, hasMore %v", len(l.Events), *l.HasMore)
		}
		// The empty answer's cursor is a valid after=.
		listEvents(t, f, key, sello.EnvTest, "after="+url.QueryEscape(*l.Next))
	})

	t.Run("TypeFilter", func(t *testing.T) {
		l := listEvents(t, f, f.key, sello.EnvTest, "type=ecf.signed")
		if got, want := describeEvents(l.Events), "ecf.signed E310000000001"; got != want {
			t.Fatalf("type=ecf.signed: %s, want %s", got, want)
		}
		l = listEvents(t, f, f.key, sello.EnvTest, "type=ecf.queued&limit=2")
		if got, want := describeEvents(l.Events), "ecf.queued E310000000001, ecf.queued E310000000002"; got != want || !*l.HasMore {
			t.Fatalf("type=ecf.queued&limit=2: %s (hasMore %v), want %s (true)", got, *l.HasMore, want)
		}
		l = listEvents(t, f, f.key, sello.EnvTest, "type=ecf.queued&after="+url.QueryEscape(*l.Next))
		if got, want := describeEvents(l.Events), "ecf.queued E310000000003, ecf.queued E310000000004"; got != want || *l.HasMore {
			t.Fatalf("second page of ecf.queued: %s (hasMore %v), want %s (false)", got, *l.HasMore, want)
		}
		l = listEvents(t, f, f.key, sello.EnvTest, "type=certificate.expiring")
		if len(l.Events) != 0 {
			t.Fatalf("type=certificate.expiring: %s, want none", describeEvents(l.Events))
		}
	})

	t.Run("EveryDocumentedTypeAccepted", func(t *testing.T) {
		schema := apitest.NewContract(t).Document().Components.Schemas["EventType"].Value
		if len(schema.Enum) < 15 {
			t.Fatalf("EventType enum has %d values", len(schema.Enum))
		}
		for _, v := range schema.Enum {
			listEvents(t, f, f.key, sello.EnvTest, "type="+url.QueryEscape(v.(string)))
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		other, key := mustTenant(t, f, "130000002", sello.EnvTest)
		create(t, f, key, sello.EnvTest, other.RNC)
		l := listEvents(t, f, key, sello.EnvTest, "")
		if len(l.Events) != 1 || l.Events[0].TenantID != other.ID || l.Events[0].Document.ENCF != "E310000000001" {
			t.Fatalf("other tenant sees %s", describeEvents(l.Events))
		}
		mine := listEvents(t, f, f.key, sello.EnvTest, "limit=200")
		for _, e := range mine.Events {
			if e.TenantID != f.tenant.ID {
				t.Fatalf("tenant %s sees an event of tenant %s", f.tenant.ID, e.TenantID)
			}
		}
		if len(mine.Events) != 5 {
			t.Fatalf("tenant sees %d events, want its 5", len(mine.Events))
		}
		// Another tenant's cursor only positions; it shows nothing of theirs.
		l = listEvents(t, f, key, sello.EnvTest, "after="+url.QueryEscape(*mine.Next))
		for _, e := range l.Events {
			if e.TenantID != other.ID {
				t.Fatal("a foreign cursor leaked an event")
			}
		}
	})

	t.Run("EnvironmentIsolation", func(t *testing.T) {
		mustSequence(t, f, f.tenant.ID, sello.EnvCert)
		certKey := mustKey(t, f, f.tenant.ID, sello.EnvCert, sello.Scopes...)
		create(t, f, certKey, sello.EnvCert, testRNC)
		l := listEvents(t, f, certKey, sello.EnvCert, "")
		if len(l.Events) != 1 || l.Events[0].Environment != "certecf" {
			t.Fatalf("CerteCF events: %s", describeEvents(l.Events))
		}
		for _, e := range listEvents(t, f, f.key, sello.EnvTest, "limit=200").Events {
			if e.Environment != "testecf" {
				t.Fatalf("TesteCF lists an event of %s", e.Environment)
			}
		}
		// A TesteCF key cannot read CerteCF's events.
		resp, body := call(t, f, f.key, "GET", "/CerteCF/eventos", nil)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"ENVIRONMENT_MISMATCH"`) {
			t.Fatalf("TesteCF key on CerteCF: %d %s", resp.StatusCode, body)
		}
	})

	t.Run("ErrInsufficientScope", func(t *testing.T) {
		key := mustKey(t, f, f.tenant.ID, sello.EnvTest, sello.ScopeCreate, sello.ScopeStatusRead, sello.ScopeValidate)
		resp, body := call(t, f, key, "GET", "/TesteCF/eventos", nil)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"INSUFFICIENT_SCOPE"`) || !strings.Contains(string(body), "ecf:read") {
			t.Fatalf("got %d %s, want 403 INSUFFICIENT_SCOPE naming ecf:read", resp.StatusCode, body)
		}
	})

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		resp, body := call(t, f, "sk_testecf_nope", "GET", "/TesteCF/eventos", nil)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("got %d %s, want 401", resp.StatusCode, body)
		}
	})
}

func TestListEventsInvalidRequest(t *testing.T) {
	f := mustFixture(t)
	b64 := base64.RawURLEncoding.EncodeToString
	for _, tt := range []struct {
		name, query string
		paths       []string // error.details paths, sorted
	}{
		{"NotBase64", "after=!!!", []string{"after"}},
		{"Empty", "after=", []string{"after"}},
		{"DocumentCursor", "after=" + sello.FormatCursor(time.Now(), "0193abcd"), []string{"after"}},
		{"NoNumber", "after=" + b64([]byte("ev.")), []string{"after"}},
		{"Negative", "after=" + b64([]byte("ev.-1")), []string{"after"}},
		{"LeadingZero", "after=" + b64([]byte("ev.01")), []string{"after"}},
		{"NotANumber", "after=" + b64([]byte("ev.12a")), []string{"after"}},
		{"Overflow", "after=" + b64([]byte("ev.99999999999999999999")), []string{"after"}},
		{"PaddedBase64", "after=" + base64.URLEncoding.EncodeToString([]byte("ev.42")), []string{"after"}},
		{"TxNoSeq", "after=" + b64([]byte("ev.1.")), []string{"after"}},
		{"SeqNoTx", "after=" + b64([]byte("ev..1")), []string{"after"}},
		{"ThreeNumbers", "after=" + b64([]byte("ev.1.2.3")), []string{"after"}},
		{"NegativeTx", "after=" + b64([]byte("ev.-1.2")), []string{"after"}},
		{"NegativeSeq", "after=" + b64([]byte("ev.1.-2")), []string{"after"}},
		{"PlusSign", "after=" + b64([]byte("ev.+1.2")), []string{"after"}},
		{"LeadingZeroTx", "after=" + b64([]byte("ev.01.2")), []string{"after"}},
		{"LeadingZeroSeq", "after=" + b64([]byte("ev.1.02")), []string{"after"}},
		{"OverflowTx", "after=" + b64([]byte("ev.99999999999999999999.1")), []string{"after"}},
		{"UnknownType", "type=ecf.exploded", []string{"type"}},
		{"LimitZero", "limit=0", []string{"limit"}},
		{"LimitTooLarge", "limit=201", []string{"limit"}},
		{"LimitNotANumber", "limit=ten", []string{"limit"}},
		{"UnknownParameter", "position=abc", []string{"position"}},
		{"CursorNotBase64", "cursor=!!!", []string{"cursor"}},
		{"CursorDocumentCursor", "cursor=" + sello.FormatCursor(time.Now(), "0193abcd"), []string{"cursor"}},
		{"CursorAndAfter", "cursor=" + b64([]byte("ev.1.2")) + "&after=" + b64([]byte("ev.1.2")), []string{"after"}},
		{"Repeated", "type=ecf.queued&type=ecf.signed", []string{"type"}},
		{"Several", "after=x&type=nope&limit=-1", []string{"after", "limit", "type"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := call(t, f, f.key, "GET", "/TesteCF/eventos?"+tt.query, nil)
			var e struct {
				Error struct {
					Code    string
					Message string
					Details []sello.ErrorDetail
				}
			}
			json.Unmarshal(body, &e)
			if resp.StatusCode != http.StatusBadRequest || e.Error.Code != "INVALID_REQUEST" || e.Error.Message == "" {
				t.Fatalf("got %d %s, want 400 INVALID_REQUEST", resp.StatusCode, body)
			}
			var paths []string
			for _, d := range e.Error.Details {
				paths = append(paths, d.Path)
				if d.Message == "" {
					t.Errorf("detail at %s has no message", d.Path)
				}
			}
			if !slices.Equal(paths, tt.paths) {
				t.Fatalf("details at %v, want %v: %s", paths, tt.paths, body)
			}
		})
	}
}

// TestListEventsHasMoreAtMaxLimit covers the page the store cannot over-fetch:
// limit=200 with exactly 200 and then 201 events.
func TestListEventsHasMoreAtMaxLimit(t *testing.T) {
	f := mustFixture(t)
	d := create(t, f, f.key, sello.EnvTest, testRNC)
	for range sello.MaxPageSize - 1 {
		if _, err := f.db.UpdateDocument(t.Context(), f.tenant.ID, sello.EnvTest, d.ID, sello.DocumentChange{EventType: sello.EventECFSigned}); err != nil {
			t.Fatal(err)
		}
	}
	l := listEvents(t, f, f.key, sello.EnvTest, "limit=200")
	if len(l.Events) != 200 || *l.HasMore {
		t.Fatalf("200 events: got %d, hasMore %v; want 200, false", len(l.Events), *l.HasMore)
	}
	signed(t, f, f.tenant.ID, sello.EnvTest, d.ID)
	l = listEvents(t, f, f.key, sello.EnvTest, "limit=200")
	if len(l.Events) != 200 || !*l.HasMore {
		t.Fatalf("201 events: got %d, hasMore %v; want 200, true", len(l.Events), *l.HasMore)
	}
	l = listEvents(t, f, f.key, sello.EnvTest, "limit=200&after="+url.QueryEscape(*l.Next))
	if len(l.Events) != 1 || *l.HasMore || l.Events[0].Document.Status != sello.StatusSigned {
		t.Fatalf("last page: %d events, hasMore %v", len(l.Events), *l.HasMore)
	}
}

// FuzzListEventsQuery sends arbitrary after, type and limit values: the
// answer is a 200 or a 400 INVALID_REQUEST, never anything else.
func FuzzListEventsQuery(f *testing.F) {
	fx := mustFixture(f)
	create(f, fx, fx.key, sello.EnvTest, testRNC)
	f.Add("", "", "")
	f.Add("ZXYuNDI", "ecf.queued", "10")
	f.Add("ZXYuMA", "", "200")
	f.Add("ZXYu", "ecf.signed", "0")
	f.Add("%%%", "\x00", "-1")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("ev.9223372036854775807")), "", "1")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("ev.0.2")), "", "2")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("ev.9223372036854775807.1")), "ecf.queued", "1")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte("ev.1.2.3")), "", "")
	f.Fuzz(func(t *testing.T, after, typ, limit string) {
		q := url.Values{}
		for k, v := range map[string]string{"after": after, "type": typ, "limit": limit} {
			if v != "" {
				q.Set(k, v)
			}
		}
		req := httptest.NewRequest("GET", "/TesteCF/eventos?"+q.Encode(), nil)
		req.Header.Set("X-API-KEY", fx.key)
		rec := httptest.NewRecorder()
		fx.handler.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
			var l eventList
			if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil || l.Next == nil {
				t.Fatalf("200 without next: %s", rec.Body)
			}
		case http.StatusBadRequest:
			if !strings.Contains(rec.Body.String(), `"INVALID_REQUEST"`) {
				t.Fatalf("400 not INVALID_REQUEST: %s", rec.Body)
			}
		default:
			t.Fatalf("query %s: %d %s", q.Encode(), rec.Code, rec.Body)
		}
	})
}
