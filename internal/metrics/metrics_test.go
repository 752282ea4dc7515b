package metrics_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/webhook"
)

// family is what a metric family must be: its type and its labels.
type family struct {
	name   string
	typ    dto.MetricType
	labels []string
}

// families are every family Sello defines, as docs/metrics.md lists
// them, with the Go and process figures the benchmark tool reads.
var families = []family{
	{"sello_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"code", "route"}},
	{"sello_documents_total", dto.MetricType_COUNTER, []string{"environment", "status"}},
	{"sello_document_latency_seconds", dto.MetricType_HISTOGRAM, []string{"environment", "stage"}},
	{"sello_buyer_deliveries_total", dto.MetricType_COUNTER, []string{"outcome"}},
	{"sello_dgii_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"environment", "outcome", "service"}},
	{"sello_dgii_state", dto.MetricType_GAUGE, []string{"environment", "state"}},
	{"sello_job_duration_seconds", dto.MetricType_HISTOGRAM, []string{"kind", "outcome"}},
	{"sello_job_wait_seconds", dto.MetricType_HISTOGRAM, []string{"kind"}},
	{"sello_queue_jobs", dto.MetricType_GAUGE, []string{"kind", "state"}},
	{"sello_webhook_attempts_total", dto.MetricType_COUNTER, []string{"outcome"}},
	{"sello_receiver_requests_total", dto.MetricType_COUNTER, []string{"service"}},
	{"sello_receiver_refusals_total", dto.MetricType_COUNTER, []string{"reason", "service"}},
	{"sello_rate_limit_rejections_total", dto.MetricType_COUNTER, []string{"limit"}},
	{"sello_store_commit_duration_seconds", dto.MetricType_HISTOGRAM, nil},
	{"sello_store_commit_group_size", dto.MetricType_HISTOGRAM, nil},
	{"sello_metrics_store_errors_total", dto.MetricType_COUNTER, nil},
	{"sello_certificate_earliest_expiry_timestamp_seconds", dto.MetricType_GAUGE, []string{"environment"}},
	{"sello_sequence_lowest_numbers_left", dto.MetricType_GAUGE, []string{"environment", "type"}},
	{"sello_tenant_certificate_expiry_timestamp_seconds", dto.MetricType_GAUGE, []string{"environment", "tenant"}},
	{"sello_tenant_sequence_numbers_left", dto.MetricType_GAUGE, []string{"environment", "tenant", "type"}},
	{"sello_build_info", dto.MetricType_GAUGE, []string{"goversion", "version"}},
	{"sello_process_resident_memory_peak_bytes", dto.MetricType_GAUGE, nil},
	{"process_cpu_seconds_total", dto.MetricType_COUNTER, nil},
	{"process_resident_memory_bytes", dto.MetricType_GAUGE, nil},
	{"go_goroutines", dto.MetricType_GAUGE, nil},
}

// CheckFamilies checks that got holds every family of want with its type
// and labels (on every sample), and no other sello_ family.
func CheckFamilies(tb testing.TB, got []*dto.MetricFamily, want []family) {
	tb.Helper()
	byName := map[string]*dto.MetricFamily{}
	for _, f := range got {
		byName[f.GetName()] = f
	}
	for _, w := range want {
		f := byName[w.name]
		if f == nil {
			tb.Errorf("no family %s", w.name)
			continue
		}
		if f.GetType() != w.typ {
			tb.Errorf("%s is a %s, want a %s", w.name, f.GetType(), w.typ)
		}
		for _, m := range f.GetMetric() {
			var names []string
			for _, l := range m.GetLabel() {
				names = append(names, l.GetName())
			}
			sort.Strings(names)
			if !slices.Equal(names, w.labels) {
				tb.Errorf("%s has labels %v, want %v", w.name, names, w.labels)
				break
			}
		}
		delete(byName, w.name)
	}
	for name := range byName {
		if strings.HasPrefix(name, "sello_") {
			tb.Errorf("family %s is not in the list: add it (and to docs/metrics.md)", name)
		}
	}
}

// fakeSource is a store with fixed figures that counts its reads.
type fakeSource struct {
	reads atomic.Int64
	fail  atomic.Bool
}

func (f *fakeSource) source() metrics.Source {
	return metrics.Source{
		Reachability: func(_ context.Context, env sello.Environment) (*sello.Reachability, error) {
			if f.fail.Load() {
				return nil, errors.New("store down")
			}
			r := sello.NewReachability(env)
			if env == sello.EnvProd {
				r.State = sello.DGIIContingency
			}
			return r, nil
		},
		CountJobs: func(_ context.Context, limit int) ([]jobs.Count, error) {
			f.reads.Add(1)
			if limit != jobs.MaxCounted {
				return nil, errors.New("unbounded count")
			}
			return []jobs.Count{{Kind: "sello.document", State: rivertype.JobStateAvailable, N: 7}}, nil
		},
	}
}

// exercise observes one of everything on m.
func exercise(tb testing.TB, m *metrics.Metrics, src *fakeSource) {
	tb.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{env}/documentos-ecf/{encf}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) })
	h := m.Instrument(mux)
	for _, path := range []string{"/TesteCF/documentos-ecf/E310000000001", "/nowhere"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}

	created := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	doc := &sello.Document{Environment: sello.EnvTest, CreatedAt: created}
	m.DocumentCreated(sello.EnvTest)
	for i, st := range []sello.Status{sello.StatusSigned, sello.StatusSubmitted, sello.StatusAccepted} {
		doc.Status, doc.UpdatedAt = st, created.Add(time.Duration(i+1)*time.Second)
		m.DocumentChanged(doc)
	}
	doc.Delivery, doc.UpdatedAt = sello.Delivery{Status: sello.DeliveryDelivered}, created.Add(10*time.Second)
	m.DeliveryRecorded(doc)
	m.DeliveryRecorded(&sello.Document{Environment: sello.EnvTest, Delivery: sello.Delivery{Status: sello.DeliveryFailed, Code: "3"}})
	m.DeliveryRetried()

	m.DGIICall(dgii.Call{Environment: sello.EnvProd, Service: "recepcion", Outcome: dgii.CallUnavailable, Duration: time.Second})
	m.WebhookAttempt("")
	m.WebhookAttempt(webhook.ClassTimeout)
	m.ReceiverCalled(metrics.ServiceSemilla, nil)
	m.ReceiverCalled(metrics.ServiceRecepcion, sello.Errorf(sello.CodeRateLimited, "Too many."))
	m.ReceiverCalled(metrics.ServiceRecepcion, errors.New("disk on fire"))
	m.ReceiptRefused(sello.ReceiptSignature)
	m.Commit(3, time.Millisecond)

	l := m.RateLimiter(sello.NewMemoryRateLimiter())
	plan := sello.RatePlan{Name: "tiny", Rate: 0.001, Burst: 1}
	for range 2 {
		if _, err := l.Allow(tb.Context(), "key:0192-abcd", plan); err != nil {
			tb.Fatal(err)
		}
	}

	for _, mw := range m.JobMiddleware() {
		attempted := time.Now()
		job := &rivertype.JobRow{Kind: "sello.document", ScheduledAt: attempted.Add(-2 * time.Second), AttemptedAt: &attempted}
		for _, err := range []error{nil, river.JobSnooze(time.Second), errors.New("boom")} {
			if got := mw.(rivertype.WorkerMiddleware).Work(tb.Context(), job, func(context.Context) error { return err }); got != err {
				tb.Fatalf("the middleware returned %v, not the job's %v", got, err)
			}
		}
	}

	m.WatchStore(src.source())
	m.SetCertificateExpiries([]metrics.CertificateExpiry{
		{Environment: sello.EnvProd, Tenant: "130000001", NotAfter: time.Unix(2_000_000_000, 0)},
		{Environment: sello.EnvProd, Tenant: "130000002", NotAfter: time.Unix(1_900_000_000, 0)},
	})
	m.SetSequencesLeft([]metrics.SequenceLeft{
		{Environment: sello.EnvProd, Type: "31", Tenant: "130000001", Left: 500},
		{Environment: sello.EnvProd, Type: "31", Tenant: "130000002", Left: 20},
		{Environment: sello.EnvProd, Type: "32", Tenant: "130000002", Left: 0},
	})
}

func TestFamilies(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "test", TenantLabels: true})
	exercise(t, m, &fakeSource{})
	got, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	CheckFamilies(t, got, families)
}

func TestNoTenantFamiliesByDefault(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "test"})
	exercise(t, m, &fakeSource{})
	got, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var want []family
	for _, f := range families {
		if !strings.HasPrefix(f.name, "sello_tenant_") {
			want = append(want, f)
		}
	}
	CheckFamilies(t, got, want)
}

func TestValues(t *testing.T) {
	m := metrics.New(metrics.Options{Version: "test", TenantLabels: true})
	exercise(t, m, &fakeSource{})
	for _, tt := range []struct {
		name, text string
	}{
		{"sello_http_request_duration_seconds_count", `
sello_http_request_duration_seconds_count{code="404",route="GET /{env}/documentos-ecf/{encf}"} 1
sello_http_request_duration_seconds_count{code="404",route="unmatched"} 1
`},
		{"sello_documents_total", `
sello_documents_total{environment="TesteCF",status="accepted"} 1
sello_documents_total{environment="TesteCF",status="queued_for_signing"} 1
sello_documents_total{environment="TesteCF",status="signed"} 1
sello_documents_total{environment="TesteCF",status="submitted"} 1
`},
		{"sello_document_latency_seconds_sum", `
sello_document_latency_seconds_sum{environment="TesteCF",stage="delivered"} 10
sello_document_latency_seconds_sum{environment="TesteCF",stage="signed"} 1
sello_document_latency_seconds_sum{environment="TesteCF",stage="submitted"} 2
sello_document_latency_seconds_sum{environment="TesteCF",stage="verdict"} 3
`},
		{"sello_buyer_deliveries_total", `
sello_buyer_deliveries_total{outcome="delivered"} 1
sello_buyer_deliveries_total{outcome="not_received"} 1
sello_buyer_deliveries_total{outcome="retry"} 1
`},
		{"sello_webhook_attempts_total", `
sello_webhook_attempts_total{outcome="success"} 1
sello_webhook_attempts_total{outcome="timeout"} 1
`},
		{"sello_receiver_refusals_total", `
sello_receiver_refusals_total{reason="internal",service="recepcion"} 1
sello_receiver_refusals_total{reason="not_received_signature",service="recepcion"} 1
sello_receiver_refusals_total{reason="rate_limited",service="recepcion"} 1
`},
		{"sello_rate_limit_rejections_total", `
sello_rate_limit_rejections_total{limit="api_key"} 1
`},
		{"sello_job_duration_seconds_count", `
sello_job_duration_seconds_count{kind="sello.document",outcome="completed"} 1
sello_job_duration_seconds_count{kind="sello.document",outcome="failed"} 1
sello_job_duration_seconds_count{kind="sello.document",outcome="snoozed"} 1
`},
		{"sello_job_wait_seconds_sum", `
sello_job_wait_seconds_sum{kind="sello.document"} 6
`},
		{"sello_store_commit_group_size_sum", `
sello_store_commit_group_size_sum 3
`},
		{"sello_dgii_state", `
sello_dgii_state{environment="CerteCF",state="available"} 1
sello_dgii_state{environment="CerteCF",state="contingency"} 0
sello_dgii_state{environment="CerteCF",state="draining"} 0
sello_dgii_state{environment="TesteCF",state="available"} 1
sello_dgii_state{environment="TesteCF",state="contingency"} 0
sello_dgii_state{environment="TesteCF",state="draining"} 0
sello_dgii_state{environment="eCF",state="available"} 0
sello_dgii_state{environment="eCF",state="contingency"} 1
sello_dgii_state{environment="eCF",state="draining"} 0
`},
		{"sello_queue_jobs", `
sello_queue_jobs{kind="sello.document",state="available"} 7
sello_queue_jobs{kind="sello.document",state="pending"} 0
sello_queue_jobs{kind="sello.document",state="retryable"} 0
sello_queue_jobs{kind="sello.document",state="running"} 0
sello_queue_jobs{kind="sello.document",state="scheduled"} 0
`},
		{"sello_certificate_earliest_expiry_timestamp_seconds", `
sello_certificate_earliest_expiry_timestamp_seconds{environment="eCF"} 1.9e+09
`},
		{"sello_sequence_lowest_numbers_left", `
sello_sequence_lowest_numbers_left{environment="eCF",type="31"} 20
sello_sequence_lowest_numbers_left{environment="eCF",type="32"} 0
`},
		{"sello_tenant_sequence_numbers_left", `
sello_tenant_sequence_numbers_left{environment="eCF",tenant="130000001",type="31"} 500
sello_tenant_sequence_numbers_left{environment="eCF",tenant="130000002",type="31"} 20
sello_tenant_sequence_numbers_left{environment="eCF",tenant="130000002",type="32"} 0
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := samples(t, m, tt.name)
			want := strings.Split(strings.TrimSpace(tt.text), "\n")
			if !slices.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// samples are the lines of the text format of m's samples named name,
// sorted.
func samples(tb testing.TB, m *metrics.Metrics, name string) []string {
	tb.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			tb.Fatal(err)
		}
	}
	var out []string
	for line := range strings.Lines(b.String()) {
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	sort.Strings(out)
	return out
}

// TestStoreReadsCached checks that scrapes read the store at most once
// per TTL, and that a failed read is counted and leaves its figures out.
func TestStoreReadsCached(t *testing.T) {
	m := metrics.New(metrics.Options{})
	src := &fakeSource{}
	m.WatchStore(src.source())
	for range 3 {
		if _, err := m.Registry().Gather(); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.reads.Load(); n != 1 {
		t.Errorf("3 scrapes within the TTL read the store %d times, want 1", n)
	}

	m = metrics.New(metrics.Options{})
	src = &fakeSource{}
	src.fail.Store(true)
	m.WatchStore(src.source())
	if got := samples(t, m, "sello_dgii_state"); len(got) != 0 {
		t.Errorf("a failed read gave %v", got)
	}
	if got, want := samples(t, m, "sello_metrics_store_errors_total"), []string{"sello_metrics_store_errors_total 1"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestNil checks that a nil *Metrics observes nothing and changes nothing.
func TestNil(t *testing.T) {
	var m *metrics.Metrics
	exercise(t, m, &fakeSource{})
	h := http.NotFoundHandler()
	if got := m.Instrument(h); got == nil {
		t.Error("Instrument returned nil")
	}
	l := sello.NewMemoryRateLimiter()
	if m.RateLimiter(l) != sello.RateLimiter(l) {
		t.Error("RateLimiter wrapped the limiter")
	}
	if m.JobMiddleware() != nil {
		t.Error("JobMiddleware returned middleware")
	}
}
