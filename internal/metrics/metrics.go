package metrics

import (
	"net/http"
	"runtime"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Options configures New.
type Options struct {
	// Version is Sello's version, sello_build_info's label.
	Version string
	// TenantLabels adds the per-tenant gauges of certificate expiry and
	// numbers left (sello_tenant_…), one series per tenant and environment
	// (and document type): off by default, since their number grows with
	// the tenants.
	TenantLabels bool
}

// Metrics holds Sello's metrics and the registry that serves them. Make
// one per process with New; a nil *Metrics records nothing.
type Metrics struct {
	reg          *prometheus.Registry
	tenantLabels bool

	httpDuration     *prometheus.HistogramVec
	documents        *prometheus.CounterVec
	documentLatency  *prometheus.HistogramVec
	deliveries       *prometheus.CounterVec
	dgiiDuration     *prometheus.HistogramVec
	jobDuration      *prometheus.HistogramVec
	jobWait          *prometheus.HistogramVec
	webhookAttempts  *prometheus.CounterVec
	receiverRequests *prometheus.CounterVec
	receiverRefusals *prometheus.CounterVec
	rateLimited      *prometheus.CounterVec
	commitDuration   prometheus.Histogram
	commitGroup      prometheus.Histogram
	scrapeErrors     prometheus.Counter

	checks *checkCollector
}

// Buckets of the histograms, in seconds but for group sizes.
var (
	// requestBuckets: an answer from the API or the portal, 1 ms to 10 s.
	requestBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	// lifecycleBuckets: a document's way from its creation to a stage,
	// 50 ms (signed at once) to a day (DGII in contingency).
	lifecycleBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600}
	// callBuckets: a call to DGII, retries included, 10 ms to 2 minutes.
	callBuckets = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}
	// jobBuckets: a job's run (at most JobTimeout, a minute) or its wait
	// in the queue, 1 ms to 5 minutes.
	jobBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}
	// commitBuckets: a store's COMMIT, 100 µs to 1 s.
	commitBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}
	// groupBuckets: the pieces of work of one SQLite commit (at most 64).
	groupBuckets = []float64{1, 2, 4, 8, 16, 32, 64}
)

// New returns Sello's metrics on a registry of their own, with Go's
// runtime collector, the process collector (process_cpu_seconds_total,
// process_resident_memory_bytes, …), sello_build_info and, on Linux,
// sello_process_resident_memory_peak_bytes.
func New(o Options) *Metrics {
	m := &Metrics{
		reg:          prometheus.NewRegistry(),
		tenantLabels: o.TenantLabels,
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sello_http_request_duration_seconds",
			Help:    "Time to answer a request of the API or the portal, by route (the mux's pattern; unmatched for none) and status code.",
			Buckets: requestBuckets,
		}, []string{"route", "code"}),
		documents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sello_documents_total",
			Help: "Documents that reached a status in this process: queued_for_signing when the API creates one, the others at the worker's transitions.",
		}, []string{"environment", "status"}),
		documentLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sello_document_latency_seconds",
			Help:    "Time from a document's creation to a stage of its lifecycle: signed, submitted (to DGII), verdict (accepted, accepted_conditional or rejected) and delivered (to the buyer), from the document's own timestamps.",
			Buckets: lifecycleBuckets,
		}, []string{"environment", "stage"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sello_buyer_deliveries_total",
			Help: "Runs of the delivery of an accepted e-CF to its buyer's receiver, by outcome: delivered, not_received (the buyer's ARECF refused it), failed (given up), not_electronic, retry (no answer; tried again later).",
		}, []string{"outcome"}),
		dgiiDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sello_dgii_request_duration_seconds",
			Help:    "Time of a call to a DGII service, its retries included, by environment, service and outcome (ok, unavailable, uncertain, refused, cancelled, error).",
			Buckets: callBuckets,
		}, []string{"environment", "service", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sello_job_duration_seconds",
			Help:    "Time of a run of a River job, by kind and outcome (completed, snoozed, cancelled, failed).",
			Buckets: jobBuckets,
		}, []string{"kind", "outcome"}),
		jobWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sello_job_wait_seconds",
			Help:    "Time a River job waited from when it was due to when a worker took it, by kind.",
			Buckets: jobBuckets,
		}, []string{"kind"}),
		webhookAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sello_webhook_attempts_total",
			Help: "Webhook delivery attempts, by outcome: success, or why one failed (dns, connect, tls, timeout, blocked, http_status).",
		}, []string{"outcome"}),
		receiverRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sello_receiver_requests_total",
			Help: "Calls to the tenants' receiver services, by service (semilla, validacioncertificado, recepcion, aprobacioncomercial).",
		}, []string{"service"}),
		receiverRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sello_receiver_refusals_total",
			Help: "Calls to the receiver services refused, by service and reason: the error code in lower case, or not_received_<why> for an e-CF answered with an ARECF that refuses it.",
		}, []string{"service", "reason"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sello_rate_limit_rejections_total",
			Help: "Requests refused by a rate limit, by limit (api_key, receiver_address, receiver, portal_…).",
		}, []string{"limit"}),
		commitDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "sello_store_commit_duration_seconds",
			Help:    "Time of the COMMIT of one of the store's write transactions (on SQLite, of a group of them).",
			Buckets: commitBuckets,
		}),
		commitGroup: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "sello_store_commit_group_size",
			Help:    "Write transactions committed together by one COMMIT (SQLite's group commit; always 1 on PostgreSQL).",
			Buckets: groupBuckets,
		}),
		scrapeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "sello_metrics_store_errors_total",
			Help: "Scrapes whose reads of the store failed; the queue and DGII figures are then missing from them.",
		}),
	}
	m.checks = newCheckCollector(o.TenantLabels)
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "sello_build_info",
			Help:        "Always 1: Sello's version and the Go it was built with, as labels.",
			ConstLabels: prometheus.Labels{"version": o.Version, "goversion": runtime.Version()},
		}, func() float64 { return 1 }),
		m.httpDuration, m.documents, m.documentLatency, m.deliveries, m.dgiiDuration,
		m.jobDuration, m.jobWait, m.webhookAttempts, m.receiverRequests, m.receiverRefusals,
		m.rateLimited, m.commitDuration, m.commitGroup, m.scrapeErrors, m.checks,
	)
	if peakRSS() > 0 {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "sello_process_resident_memory_peak_bytes",
			Help: "The most resident memory the process has used since it started (VmHWM of /proc/self/status).",
		}, func() float64 { return float64(peakRSS()) }))
	}
	return m
}

// Registry returns the registry that holds every metric.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus's text format (or
// OpenMetrics', when the scraper asks for it).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	})
}

// codes are the label values of the HTTP status codes, made once.
var codes = func() []string {
	s := make([]string, 600)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// codeLabel is status's label value.
func codeLabel(status int) string {
	if status >= 0 && status < len(codes) {
		return codes[status]
	}
	return strconv.Itoa(status)
}
