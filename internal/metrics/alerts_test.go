package metrics_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/oracle"
	"gopkg.in/yaml.v2"
)

// The files that use the metrics, from this package's folder.
var (
	alertsFile     = filepath.Join("..", "..", "deploy", "alerts.yml")
	prometheusFile = filepath.Join("..", "..", "deploy", "prometheus.yml")
	composeFile    = filepath.Join("..", "..", "compose.yaml")
	metricsDoc     = filepath.Join("..", "..", "docs", "metrics.md")
	operationsDoc  = filepath.Join("..", "..", "docs", "operations.md")
)

// ruleFile is a Prometheus rule file.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []rule `yaml:"rules"`
	} `yaml:"groups"`
}

// rule is an alerting or a recording rule.
type rule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// prometheusConfig is the part of a Prometheus configuration the tests read.
type prometheusConfig struct {
	RuleFiles     []string `yaml:"rule_files"`
	ScrapeConfigs []struct {
		JobName string `yaml:"job_name"`
	} `yaml:"scrape_configs"`
}

// readYAML reads the YAML file path into v, refusing unknown fields.
func readYAML(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// registered are the families of a registry with every metric observed
// once (and the tenants' gauges on), by name.
func registered(tb testing.TB) map[string]*dto.MetricFamily {
	tb.Helper()
	m := metrics.New(metrics.Options{Version: "test", TenantLabels: true})
	exercise(tb, m, &fakeSource{})
	fams, err := m.Registry().Gather()
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

var (
	// metricName is a name of Sello's metrics, or one of a histogram's
	// series.
	metricName = regexp.MustCompile(`\bsello_[a-z0-9_]+`)
	// selector is a metric's name and its label matchers.
	selector = regexp.MustCompile(`\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}`)
	// matcher is one label matcher of a selector.
	matcher = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"`)
	// grouping is an aggregation's or a binary operator's label list.
	grouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)`)
	// labelRef is a template's reference to a label of an alert.
	labelRef = regexp.MustCompile(`\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)`)
)

// targetLabels are the labels Prometheus adds to every scraped series.
var targetLabels = []string{"instance", "job"}

// histogramSuffixes are the suffixes of a histogram's series.
var histogramSuffixes = []string{"_bucket", "_sum", "_count"}

// checker checks PromQL against the metrics of a registry and the jobs of
// a Prometheus configuration.
type checker struct {
	fams map[string]*dto.MetricFamily
	jobs []string
}

// resolve returns the family of a series name (a histogram's _bucket,
// _sum or _count included) and its labels, or ok false when there is
// none.
func (c checker) resolve(name string) (labels []string, ok bool) {
	f := c.fams[name]
	bucket := false
	if f == nil {
		for _, suffix := range histogramSuffixes {
			if base, cut := strings.CutSuffix(name, suffix); cut {
				if h := c.fams[base]; h != nil && h.GetType() == dto.MetricType_HISTOGRAM {
					f, bucket = h, suffix == "_bucket"
				}
			}
		}
	}
	if f == nil {
		return nil, false
	}
	seen := map[string]bool{}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			seen[l.GetName()] = true
		}
	}
	for l := range seen {
		labels = append(labels, l)
	}
	if bucket {
		labels = append(labels, "le")
	}
	sort.Strings(labels)
	return labels, true
}

// check returns the problems of expr: names of Sello's metrics that are
// none, label matchers on labels their metric lacks, a job no scrape
// configuration has, and labels (grouped by, or in the templates refs)
// that none of the expression's metrics has.
func (c checker) check(expr string, refs ...string) []string {
	var problems []string
	known := slices.Clone(targetLabels)
	for _, name := range metricName.FindAllString(expr, -1) {
		labels, ok := c.resolve(name)
		if !ok {
			problems = append(problems, "no metric "+name)
		}
		known = append(known, labels...)
	}
	for _, sel := range selector.FindAllStringSubmatch(expr, -1) {
		name, labels := sel[1], slices.Clone(targetLabels)
		if strings.HasPrefix(name, "sello_") {
			ls, ok := c.resolve(name)
			if !ok {
				continue // reported above
			}
			labels = append(labels, ls...)
		}
		for _, m := range matcher.FindAllStringSubmatch(sel[2], -1) {
			switch {
			case !slices.Contains(labels, m[1]):
				problems = append(problems, fmt.Sprintf("%s has no label %s (it has %v)", name, m[1], labels))
			case m[1] == "job" && !slices.Contains(c.jobs, m[2]):
				problems = append(problems, fmt.Sprintf("no scrape configuration has job %q (they have %v)", m[2], c.jobs))
			}
		}
	}
	var used []string
	for _, g := range grouping.FindAllStringSubmatch(expr, -1) {
		for l := range strings.SplitSeq(g[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				used = append(used, l)
			}
		}
	}
	for _, ref := range refs {
		for _, m := range labelRef.FindAllStringSubmatch(ref, -1) {
			used = append(used, m[1])
		}
	}
	for _, l := range used {
		if !slices.Contains(known, l) {
			problems = append(problems, fmt.Sprintf("label %s is none of the expression's metrics' (%v)", l, known))
		}
	}
	return problems
}

// newChecker returns a checker of the registry's metrics and the jobs of
// deploy/prometheus.yml.
func newChecker(tb testing.TB) checker {
	tb.Helper()
	var cfg prometheusConfig
	readYAML(tb, prometheusFile, &cfg)
	c := checker{fams: registered(tb)}
	for _, sc := range cfg.ScrapeConfigs {
		c.jobs = append(c.jobs, sc.JobName)
	}
	return c
}

// TestAlertRulesChecker checks the checker: it finds guessed names,
// wrong labels and unknown jobs, and passes the right ones.
func TestAlertRulesChecker(t *testing.T) {
	c := newChecker(t)
	for _, tt := range []struct {
		name, expr, ref string
		problems        int
	}{
		{"OK", `sum by (environment, le) (rate(sello_dgii_request_duration_seconds_bucket{environment="eCF", outcome=~"ok|refused"}[5m]))`, "{{ $labels.environment }}", 0},
		{"OKCount", `sum(rate(sello_http_request_duration_seconds_count{code=~"5.."}[5m]))`, "", 0},
		{"OKUp", `up{job="sello"} == 0`, "{{ $labels.instance }}", 0},
		{"ErrGuessedName", `sum(rate(sello_http_requests_total[5m]))`, "", 1},
		{"ErrCountOfCounter", `rate(sello_documents_total_count[5m])`, "", 1},
		{"ErrLeOfCount", `sello_job_wait_seconds_count{le="1"}`, "", 1},
		{"ErrMatcherLabel", `max(sello_dgii_state{env="eCF"})`, "", 1},
		{"ErrGroupingLabel", `max by (env) (sello_dgii_state)`, "", 1},
		{"ErrTemplateLabel", `sello_sequence_lowest_numbers_left < 100`, "{{ $labels.tenant }}", 1},
		{"ErrJob", `up{job="selo"} == 0`, "", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.check(tt.expr, tt.ref); len(got) != tt.problems {
				t.Errorf("check(%s, %s) = %q, want %d problems", tt.expr, tt.ref, got, tt.problems)
			}
		})
	}
}

// TestAlertRules checks that deploy/alerts.yml uses only metrics the
// registry has, with their labels, and the scrape job of
// deploy/prometheus.yml; and that docs/operations.md names every alert.
func TestAlertRules(t *testing.T) {
	c := newChecker(t)
	text, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	// Every name, comments included.
	for _, name := range metricName.FindAllString(string(text), -1) {
		if _, ok := c.resolve(name); !ok {
			t.Errorf("%s names %s, which is no metric of internal/metrics", alertsFile, name)
		}
	}
	var rf ruleFile
	readYAML(t, alertsFile, &rf)
	var alerts []string
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				t.Errorf("%s: a rule that is no alert: %+v", alertsFile, r)
				continue
			}
			alerts = append(alerts, r.Alert)
			if s := r.Labels["severity"]; s != "page" && s != "ticket" {
				t.Errorf("%s: severity %q, want page or ticket", r.Alert, s)
			}
			var refs []string
			for _, a := range r.Annotations {
				refs = append(refs, a)
			}
			for _, p := range c.check(r.Expr, refs...) {
				t.Errorf("%s: %s", r.Alert, p)
			}
		}
	}
	if len(alerts) == 0 {
		t.Fatalf("%s has no alerts", alertsFile)
	}

	ops, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`(Sello[A-Z][A-Za-z]*)`").FindAllStringSubmatch(string(ops), -1)
	var documented []string
	for _, n := range named {
		documented = append(documented, n[1])
	}
	for _, a := range alerts {
		if !slices.Contains(documented, a) {
			t.Errorf("%s does not say why %s fires (its table of alerts)", operationsDoc, a)
		}
	}
	for _, d := range documented {
		if !slices.Contains(alerts, d) {
			t.Errorf("%s names alert %s, which %s lacks", operationsDoc, d, alertsFile)
		}
	}
}

// TestMetricsDocQueries checks the PromQL of the docs: the queries of
// docs/metrics.md and the metrics docs/operations.md's dashboards and
// alerts name are the registry's, with their labels.
func TestMetricsDocQueries(t *testing.T) {
	c := newChecker(t)
	for _, tt := range []struct {
		file, section string
	}{
		{metricsDoc, ""},
		{operationsDoc, "## Dashboards and alerts"},
	} {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if tt.section != "" {
			_, after, ok := strings.Cut(text, "\n"+tt.section+"\n")
			if !ok {
				t.Fatalf("%s has no section %q", tt.file, tt.section)
			}
			text, _, _ = strings.Cut(after, "\n## ")
		}
		n := 0
		for _, code := range codeOf(text) {
			if !metricName.MatchString(code) {
				continue
			}
			n++
			for _, p := range c.check(code) {
				t.Errorf("%s: %s: %s", tt.file, strings.TrimSpace(code), p)
			}
		}
		if n == 0 {
			t.Errorf("%s: no code names a metric", tt.file)
		}
	}
}

// codeOf returns the code of markdown text: each fenced block whole, each
// inline code span outside them.
func codeOf(text string) []string {
	var out []string
	for i, part := range strings.Split(text, "```") {
		if i%2 == 1 {
			out = append(out, part)
			continue
		}
		for j, span := range strings.Split(part, "`") {
			if j%2 == 1 {
				out = append(out, span)
			}
		}
	}
	return out
}

// TestAlertRulesLoaded checks that deploy/prometheus.yml loads
// deploy/alerts.yml by a path relative to itself, which compose.yaml
// mounts beside it.
func TestAlertRulesLoaded(t *testing.T) {
	var cfg prometheusConfig
	readYAML(t, prometheusFile, &cfg)
	if want := []string{"alerts.yml"}; !slices.Equal(cfg.RuleFiles, want) {
		t.Fatalf("%s loads %v, want %v", prometheusFile, cfg.RuleFiles, want)
	}
	compose, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, mount := range []string{
		"./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro",
		"./deploy/alerts.yml:/etc/prometheus/alerts.yml:ro",
		"--config.file=/etc/prometheus/prometheus.yml",
	} {
		if !strings.Contains(string(compose), mount) {
			t.Errorf("%s lacks %s", composeFile, mount)
		}
	}
}

// TestAlertRulesPromtool runs promtool check rules on deploy/alerts.yml,
// and check config on deploy/prometheus.yml, which loads them.
func TestAlertRulesPromtool(t *testing.T) {
	promtool := oracle.Require(t, "promtool")
	var rf ruleFile
	readYAML(t, alertsFile, &rf)
	n := 0
	for _, g := range rf.Groups {
		n += len(g.Rules)
	}
	rules := fmt.Sprintf("SUCCESS: %d rules found", n)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"check", "rules", alertsFile}, []string{rules}},
		{[]string{"check", "config", prometheusFile}, []string{"SUCCESS: 1 rule files found", rules}},
	} {
		out, err := exec.Command(promtool, tt.args...).CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(tt.args, " "), err, out)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("promtool %s says no %q:\n%s", strings.Join(tt.args, " "), w, out)
			}
		}
	}
}
