// Package metricstest reads a metrics.Metrics's samples in tests.
package metricstest

import (
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/sello-do/sello/internal/metrics"
)

// Values are the samples of m's family name by their labels, written
// name=value,… in label order: a counter's or a gauge's value, a
// histogram's count. None when the family has no sample.
func Values(tb testing.TB, m *metrics.Metrics, name string) map[string]float64 {
	tb.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			var labels []string
			for _, l := range s.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			out[strings.Join(labels, ",")] = value(f.GetType(), s)
		}
	}
	return out
}

func value(t dto.MetricType, s *dto.Metric) float64 {
	switch t {
	case dto.MetricType_COUNTER:
		return s.GetCounter().GetValue()
	case dto.MetricType_HISTOGRAM:
		return float64(s.GetHistogram().GetSampleCount())
	}
	return s.GetGauge().GetValue()
}
