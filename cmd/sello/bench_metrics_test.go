package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// clientGolangSample is what client_golang's process and Go collectors
// and a histogram look like in the text format.
const clientGolangSample = `# HELP go_gc_duration_seconds A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 2.4e-05
go_gc_duration_seconds{quantile="1"} 0.000331
go_gc_duration_seconds_sum 0.004
go_gc_duration_seconds_count 31
# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 123.45
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 2.1037056e+08
sello_process_resident_memory_peak_bytes 275000000
sello_http_requests_total{route="POST /{env}/documentos-ecf",code="202"} 3000
sello_label_with_brace{msg="a } and a \" inside"} 1 1700000000000
  indented_untyped	7
weird_values{le="+Inf"} +Inf
not_a_number NaN
`

func TestParseMetrics(t *testing.T) {
	got, err := parseMetrics(strings.NewReader(clientGolangSample))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"go_gc_duration_seconds_sum":               0.004,
		"go_gc_duration_seconds_count":             31,
		"process_cpu_seconds_total":                123.45,
		"process_resident_memory_bytes":            210370560,
		"sello_process_resident_memory_peak_bytes": 275000000,
		"indented_untyped":                         7,
		"not_a_number":                             math.NaN(),
	}
	if !sameSamples(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}

	for _, tc := range []struct{ name, in, err string }{
		{"NoValue", "process_cpu_seconds_total\n", "line 1: want a value"},
		{"BadValue", "# ok\nprocess_cpu_seconds_total 1,5\n", `line 2: value "1,5" is not a number`},
		{"BadTimestamp", "a 1 yesterday\n", `line 1: timestamp "yesterday" is not an integer`},
		{"TooMany", "a 1 2 3\n", "line 1: want a value"},
		{"Unclosed", `a{b="}" 1` + "\n", "line 1: labels not closed"},
		{"NoName", "= 1\n", "line 1: no metric name"},
		{"JunkAfterName", "a-b 1\n", `line 1: unexpected '-' after the metric name`},
		{"Twice", "a 1\na 2\n", "line 2: a given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseMetrics(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
}

// sameSamples compares two parses, NaN equal to NaN.
func sameSamples(a, b map[string]float64) bool {
	return maps.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

// FuzzParseMetrics: parseMetrics never panics, and what it returns, written
// out again as text, parses to the same samples.
func FuzzParseMetrics(f *testing.F) {
	f.Add(clientGolangSample)
	f.Add("a 1\n")
	f.Add("a{b=\"c\\\"}\"} 1 2\n# x\n")
	f.Add("a_b:c 1e308\nd -Inf\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parseMetrics(strings.NewReader(in))
		if err != nil {
			return
		}
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(got)) {
			fmt.Fprintf(&b, "%s %s\n", name, strconv.FormatFloat(got[name], 'g', -1, 64))
		}
		again, err := parseMetrics(strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("%q parsed to %v, which written out (%q) does not parse: %v", in, got, b.String(), err)
		}
		if !sameSamples(got, again) {
			t.Fatalf("%q parsed to %v, written out and parsed again %v", in, got, again)
		}
	})
}

func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		name, in, comm string
		ticks          uint64
		err            string
	}{
		{"OK", "2212 (postgres) S 1 2212 2212 0 -1 4194560 3379 53075 0 1 12 34 56 78 20 0 1 0 1143 228773888 7522 18446744073709551615 1 1 0 0 0 0 4194304 19935240 16904 0 0 0 17 0 0 0 0 0 0",
			"postgres", 12 + 34 + 56 + 78, ""},
		{"ParenthesesInName", "7 (a) b (c)) R 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0", "a) b (c)", 10, ""},
		{"Short", "7 (x) R 1 2", "", 0, "too few fields"},
		{"NoComm", "7 x R", "", 0, "no (comm)"},
		{"Negative", "7 (x) R 1 1 1 0 -1 0 0 0 0 0 -1 2 3 4 20 0", "", 0, `time "-1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			comm, ticks, err := parseProcStat(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || comm != tc.comm || ticks != tc.ticks {
				t.Errorf("got %q %d %v, want %q %d", comm, ticks, err, tc.comm, tc.ticks)
			}
		})
	}
}
