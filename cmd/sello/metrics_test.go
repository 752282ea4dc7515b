package main

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/oracle"
)

// scrape fetches the server's metrics in Prometheus's text format.
func (s *testServer) scrape(tb testing.TB) []byte {
	tb.Helper()
	if s.MetricsURL == "" {
		tb.Fatal("the server has no metrics: start it with --debug-addr")
	}
	resp, err := http.Get(s.MetricsURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		tb.Fatalf("GET %s: %d %s\n%s", s.MetricsURL, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return body
}

// getStatus GETs url and returns the answer's status.
func getStatus(tb testing.TB, url string) int {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// scrapeFamilies parses a scrape.
func scrapeFamilies(tb testing.TB, body []byte) map[string]*dto.MetricFamily {
	tb.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		tb.Fatalf("parse the metrics: %v", err)
	}
	return fams
}

// series are the label sets of a family's samples, each as
// name="value",… in label order, sorted.
func series(f *dto.MetricFamily) []string {
	var out []string
	for _, m := range f.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, l.GetName()+"="+l.GetValue())
		}
		out = append(out, strings.Join(ls, ","))
	}
	sort.Strings(out)
	return out
}

// hasSeries reports whether f has a sample with every label of want.
func hasSeries(f *dto.MetricFamily, want ...string) bool {
	for _, s := range series(f) {
		labels := strings.Split(s, ",")
		if !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(labels, w) }) {
			return true
		}
	}
	return false
}

// TestMetrics runs a document through its lifecycle, calls the demo
// tenant's receiver beyond its limit and makes requests no route takes,
// then checks the scrape: promtool finds no problem in it, and its
// families carry the labels docs/metrics.md lists, with the samples those
// requests made.
func TestMetrics(t *testing.T) {
	promtool := oracle.Require(t, "promtool")
	s := MustRunServer(t, "--debug-addr", "127.0.0.1:0", "--metrics-tenant-labels", "--receiver-tenant-rate", "0.001", "--receiver-tenant-burst", "1")
	key := s.Keys[sello.EnvTest]

	created := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()}))
	s.waitFor(t, key, created["encf"].(string), func(d map[string]any) bool {
		delivery, _ := d["delivery"].(map[string]any)
		return delivery["status"] == sello.DeliveryDelivered
	})
	wantError(t, s.Do(t, request{Method: "GET", Path: docsPath}), http.StatusUnauthorized, sello.CodeUnauthenticated)
	wantError(t, s.Do(t, request{Method: "GET", Path: "/no/such/path"}), http.StatusNotFound, sello.CodeNotFound)
	// The receivers are DGII's interface, not the API's: no OpenAPI.
	semilla := s.URL + "/TesteCF/receptor/" + demoRNC + "/fe/autenticacion/api/semilla"
	for _, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		if got := getStatus(t, semilla); got != want {
			t.Fatalf("GET %s: %d, want %d", semilla, got, want)
		}
	}
	if page, err := httpGet(s.URL + "/portal/entrar"); err != nil || !strings.Contains(page, "<form") {
		t.Fatalf("the portal's login page: %v %.200s", err, page)
	}

	// The checks' gauges come from the hourly checks, which run at start.
	var body []byte
	if !testwait.Within(30*time.Second, 50*time.Millisecond, func() bool {
		body = s.scrape(t)
		return bytes.Contains(body, []byte("\nsello_tenant_certificate_expiry_timestamp_seconds{")) &&
			bytes.Contains(body, []byte("\nsello_tenant_sequence_numbers_left{"))
	}) {
		t.Fatalf("no figures of the checks within 30 s:\n%s", body)
	}

	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}

	fams := scrapeFamilies(t, body)
	for _, tt := range []struct {
		family string
		labels []string // of one of its samples at least
	}{
		{"sello_http_request_duration_seconds", []string{"route=POST /{env}/documentos-ecf", "code=202"}},
		{"sello_http_request_duration_seconds", []string{"route=GET /{env}/documentos-ecf", "code=401"}},
		{"sello_http_request_duration_seconds", []string{"route=unmatched", "code=404"}},
		{"sello_http_request_duration_seconds", []string{"route=GET /{env}/receptor/{rnc}/fe/autenticacion/api/semilla", "code=429"}},
		{"sello_http_request_duration_seconds", []string{"route=GET /portal/entrar", "code=200"}},
		{"sello_documents_total", []string{"environment=TesteCF", "status=queued_for_signing"}},
		{"sello_documents_total", []string{"environment=TesteCF", "status=accepted"}},
		{"sello_document_latency_seconds", []string{"environment=TesteCF", "stage=signed"}},
		{"sello_document_latency_seconds", []string{"environment=TesteCF", "stage=submitted"}},
		{"sello_document_latency_seconds", []string{"environment=TesteCF", "stage=verdict"}},
		{"sello_document_latency_seconds", []string{"environment=TesteCF", "stage=delivered"}},
		{"sello_buyer_deliveries_total", []string{"outcome=delivered"}},
		{"sello_dgii_request_duration_seconds", []string{"environment=TesteCF", "service=recepcion", "outcome=ok"}},
		{"sello_dgii_state", []string{"environment=eCF", "state=available"}},
		{"sello_job_duration_seconds", []string{"kind=sello.document", "outcome=completed"}},
		{"sello_job_wait_seconds", []string{"kind=sello.document"}},
		{"sello_receiver_requests_total", []string{"service=semilla"}},
		{"sello_receiver_refusals_total", []string{"service=semilla", "reason=rate_limited"}},
		{"sello_rate_limit_rejections_total", []string{"limit=receiver"}},
		{"sello_store_commit_duration_seconds", nil},
		{"sello_store_commit_group_size", nil},
		{"sello_certificate_earliest_expiry_timestamp_seconds", []string{"environment=eCF"}},
		{"sello_sequence_lowest_numbers_left", []string{"environment=TesteCF", "type=31"}},
		{"sello_tenant_certificate_expiry_timestamp_seconds", []string{"environment=eCF", "tenant=" + demoRNC}},
		{"sello_tenant_sequence_numbers_left", []string{"environment=TesteCF", "type=31", "tenant=" + demoRNC}},
		{"sello_build_info", []string{"version=" + version}},
		{"process_cpu_seconds_total", nil},
		{"process_resident_memory_bytes", nil},
		{"sello_process_resident_memory_peak_bytes", nil},
		{"go_goroutines", nil},
	} {
		f := fams[tt.family]
		if f == nil {
			t.Errorf("no family %s", tt.family)
		} else if !hasSeries(f, tt.labels...) {
			t.Errorf("%s has no sample with %v: %v", tt.family, tt.labels, series(f))
		}
	}
}

// TestMetricsTenantCardinality checks that by default no label grows with
// the tenants: the same requests of two tenants leave the same series of
// the routes' metrics, and no label value names a tenant.
func TestMetricsTenantCardinality(t *testing.T) {
	s := MustRunServer(t, "--debug-addr", "127.0.0.1:0")
	requests := func(key, rnc string) {
		s.Do(t, request{Method: "GET", Path: docsPath, Key: key})
		s.Do(t, request{Method: "GET", Path: docsPath + "/E310000099999", Key: key})
		s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: []byte("{")})
		getStatus(t, s.URL+"/TesteCF/receptor/"+rnc+"/fe/autenticacion/api/semilla")
	}
	routeSeries := func() []string {
		fams := scrapeFamilies(t, s.scrape(t))
		var out []string
		for _, name := range []string{"sello_http_request_duration_seconds", "sello_receiver_requests_total"} {
			if f := fams[name]; f != nil {
				for _, s := range series(f) {
					out = append(out, name+"{"+s+"}")
				}
			}
		}
		return out
	}
	requests(s.Keys[sello.EnvTest], demoRNC)
	first := routeSeries()
	if len(first) < 5 {
		t.Fatalf("too few series to compare: %v", first)
	}
	requests(s.BuyerKeys[sello.EnvTest], demoBuyerRNC)
	if second := routeSeries(); !slices.Equal(first, second) {
		t.Errorf("a second tenant's requests changed the series:\nfirst  %v\nsecond %v", first, second)
	}

	db := mustOpenStore(t, s)
	var names []string
	for _, rnc := range []string{demoRNC, demoBuyerRNC} {
		tn, err := db.FindTenantByRNC(t.Context(), rnc)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tn.RNC, tn.ID)
	}
	for name, f := range scrapeFamilies(t, s.scrape(t)) {
		for _, labels := range series(f) {
			for _, n := range names {
				if strings.Contains(labels, n) {
					t.Errorf("%s{%s} names a tenant (%s)", name, labels, n)
				}
			}
		}
	}
}
