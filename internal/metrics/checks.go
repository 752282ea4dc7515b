package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sello-do/sello"
)

// The gauges of the worker's hourly checks of certificates and sequences:
// the check reads every tenant's anyway, so the figures cost no query of
// their own. They are set by the node that runs the checks (River's
// leader) and absent on the others, and are as old as the last check.

// CertificateExpiry is when a tenant's latest certificate in an
// environment expires (the one that signs longest, expired or not).
type CertificateExpiry struct {
	Environment sello.Environment
	// Tenant is the tenant's RNC.
	Tenant   string
	NotAfter time.Time
}

// SequenceLeft is how many numbers a tenant has left, in the ranges of a
// document type in an environment that have not expired.
type SequenceLeft struct {
	Environment sello.Environment
	Type        sello.DocumentType
	// Tenant is the tenant's RNC.
	Tenant string
	Left   int64
}

var (
	certExpiryDesc = prometheus.NewDesc("sello_certificate_earliest_expiry_timestamp_seconds",
		"The earliest expiry (Unix time), among the tenants with a certificate in an environment, of each one's latest certificate; from the hourly certificate check.",
		[]string{"environment"}, nil)
	sequenceLeftDesc = prometheus.NewDesc("sello_sequence_lowest_numbers_left",
		"The fewest e-NCF numbers a tenant has left in its unexpired ranges of a document type, among the tenants with a range of that type in an environment; from the hourly sequence check.",
		[]string{"environment", "type"}, nil)
	tenantCertExpiryDesc = prometheus.NewDesc("sello_tenant_certificate_expiry_timestamp_seconds",
		"When a tenant's latest certificate in an environment expires (Unix time); from the hourly certificate check (serve --metrics-tenant-labels).",
		[]string{"environment", "tenant"}, nil)
	tenantSequenceLeftDesc = prometheus.NewDesc("sello_tenant_sequence_numbers_left",
		"The e-NCF numbers a tenant has left in its unexpired ranges of a document type in an environment; from the hourly sequence check (serve --metrics-tenant-labels).",
		[]string{"environment", "type", "tenant"}, nil)
)

// SetCertificateExpiries replaces the figures of the certificates with
// those of a whole check.
func (m *Metrics) SetCertificateExpiries(cs []CertificateExpiry) {
	if m == nil {
		return
	}
	m.checks.mu.Lock()
	defer m.checks.mu.Unlock()
	m.checks.certs = cs
}

// SetSequencesLeft replaces the figures of the sequences with those of a
// whole check.
func (m *Metrics) SetSequencesLeft(ss []SequenceLeft) {
	if m == nil {
		return
	}
	m.checks.mu.Lock()
	defer m.checks.mu.Unlock()
	m.checks.seqs = ss
}

// checkCollector is a prometheus.Collector of the checks' last figures.
type checkCollector struct {
	tenantLabels bool

	mu    sync.Mutex
	certs []CertificateExpiry
	seqs  []SequenceLeft
}

func newCheckCollector(tenantLabels bool) *checkCollector {
	return &checkCollector{tenantLabels: tenantLabels}
}

// Describe implements prometheus.Collector.
func (c *checkCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- certExpiryDesc
	ch <- sequenceLeftDesc
	if c.tenantLabels {
		ch <- tenantCertExpiryDesc
		ch <- tenantSequenceLeftDesc
	}
}

// Collect implements prometheus.Collector.
func (c *checkCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	earliest := map[sello.Environment]time.Time{}
	for _, e := range c.certs {
		if t, ok := earliest[e.Environment]; !ok || e.NotAfter.Before(t) {
			earliest[e.Environment] = e.NotAfter
		}
		if c.tenantLabels {
			ch <- gauge(tenantCertExpiryDesc, unix(e.NotAfter), string(e.Environment), e.Tenant)
		}
	}
	for env, t := range earliest {
		ch <- gauge(certExpiryDesc, unix(t), string(env))
	}
	type envType struct {
		env sello.Environment
		typ sello.DocumentType
	}
	lowest := map[envType]int64{}
	for _, s := range c.seqs {
		k := envType{s.Environment, s.Type}
		if n, ok := lowest[k]; !ok || s.Left < n {
			lowest[k] = s.Left
		}
		if c.tenantLabels {
			ch <- gauge(tenantSequenceLeftDesc, float64(s.Left), string(s.Environment), string(s.Type), s.Tenant)
		}
	}
	for k, n := range lowest {
		ch <- gauge(sequenceLeftDesc, float64(n), string(k.env), string(k.typ))
	}
}

// unix is t in seconds since the Unix epoch.
func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// gauge is a gauge's sample; an invalid one (a label value that is not
// UTF-8) fails the scrape's gathering with its error, not the process.
func gauge(desc *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}
