package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// runBench posts documents to one or more running nodes of a server, for one
// or more tenants, and waits for DGII's verdicts; it measures this
// machine's raw RSA-2048 signing before and after, for the ratio
// verdicts/s ÷ signatures/s, and, given the servers' /metrics, their CPU
// per verdict and per document in raw signatures. With --setup-tenants it
// creates tenants for it instead and prints their keys (docs/benchmarks.md).
func runBench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sello bench", flag.ContinueOnError)
	var urls, metricsURLs listFlag
	fs.Var(&urls, "url", "a node's base URL (default http://127.0.0.1:8080); repeat it for several nodes on one database: requests go to them in turn")
	key := fs.String("key", getenv("SELLO_BENCH_KEY"), "an API key with ecf:create, status:read and ecf:read (env SELLO_BENCH_KEY)")
	envName := fs.String("env", "TesteCF", "environment")
	rnc := fs.String("rnc", demoRNC, "the key's tenant RNC (RNCEmisor of the documents)")
	keysFile := fs.String("keys-file", "", "several tenants instead of --key and --rnc: a file of lines \"RNC KEY\", as --setup-tenants prints")
	tenants := fs.Int("tenants", 0, "use the first N tenants of --keys-file (default: all); the documents are spread evenly over them")
	setup := fs.Int("setup-tenants", 0, "create N tenants for the bench (RNCs 140000001…, each with sequences, a certificate of the demo CA and a key of --env) in the servers' storage (--data, --database-url; the master key as serve's), print them as a keys file, and exit")
	sf := storageFlags{stderr: stderr}
	sf.register(fs, getenv)
	docs := fs.Int("docs", 500, "documents to create")
	concurrency := fs.Int("concurrency", 16, "creates in flight at once")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up waiting for verdicts after this long")
	poll := fs.Duration("poll", 250*time.Millisecond, "how often to look for verdicts when there is nothing new (the resolution of create→verdict)")
	baseline := fs.Duration("baseline", 2*time.Second, "how long each of the two raw RSA measurements (before and after the load) signs")
	follow := fs.String("follow", "events", "how to learn the verdicts: events (GET /{env}/eventos from where the feed stood before the first create; needs ecf:read) or status (status/batch of every document still waiting)")
	fs.Var(&metricsURLs, "metrics-url", "a server's /metrics (serve's --debug-addr), e.g. http://127.0.0.1:6060/metrics; repeat it for every node: their CPU seconds and peak memory are read before and after the load")
	idle := fs.Duration("idle", time.Second, "with --metrics-url: after the last verdict, read the servers' CPU every this long until each used under 5% of a core in one such interval, so that what a verdict leaves to do (the delivery to the buyer) is counted; 0: stop at the last verdict")
	dbProc := fs.String("db-cpu-proc", "", "count the CPU of every process with this command name on this machine (from /proc) as the database's, e.g. postgres; meaningful only when nothing else uses it")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	env, err := sello.ParseEnvironmentAnyCase(*envName)
	if err != nil {
		return err
	}
	if *setup > 0 {
		return setupBenchTenants(ctx, &sf, getenv, *setup, env, stdout)
	}
	ts, err := benchTenants(fs, *keysFile, *tenants, *key, *rnc)
	if err != nil {
		return err
	}
	if *follow != "events" && *follow != "status" {
		return usageError{"--follow must be events or status"}
	} else if *docs < 1 || *concurrency < 1 {
		return usageError{"--docs and --concurrency must be at least 1"}
	} else if *idle < 0 {
		return usageError{"--idle must not be negative"}
	}
	if len(urls) == 0 {
		urls = listFlag{"http://127.0.0.1:8080"}
	}
	for i, u := range urls {
		urls[i] = strings.TrimRight(u, "/")
	}
	// As many idle connections as requests in flight: Go's default keeps 2
	// per host and the bench would dial (and the server accept) per create.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = *concurrency + 1
	defer tr.CloseIdleConnections()
	b := &bench{nodes: urls, tenants: ts, env: env, client: &http.Client{Timeout: time.Minute, Transport: tr}}
	today := sello.TodayInDR(time.Now())
	for i := range b.tenants {
		b.tenants[i].body, _ = json.Marshal(ecf.SampleInvoice(b.tenants[i].rnc, today))
	}
	cursors := make([]string, len(ts))
	if *follow == "events" {
		for i := range ts {
			if cursors[i], err = b.eventsEnd(ctx, i); err != nil {
				return err
			}
		}
	}
	mon := &monitor{client: b.client, urls: metricsURLs, dbProc: *dbProc}

	sigsBefore := rawRSASignatures(*baseline)
	before, err := mon.read(ctx)
	if err != nil {
		return err
	}
	benchCPU0, _ := processCPU()

	// Create.
	start := time.Now()
	created := make([]benchDoc, *docs)
	var next atomic.Int64
	var failures atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range *concurrency {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= *docs || ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				tenant := i % len(ts)
				encf, node, err := b.create(ctx, tenant)
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				created[i] = benchDoc{tenant: tenant, node: node, encf: encf, sent: t0, created: time.Now()}
			}
		})
	}
	wg.Wait()
	createDur := time.Since(start)
	if n := failures.Load(); n > 0 {
		return fmt.Errorf("%d of %d creates failed; first: %v", n, *docs, firstErr.Load())
	}

	// Wait for verdicts.
	read := b.statusReader(created)
	if *follow == "events" {
		read = b.eventsReader(cursors)
	}
	final, err := waitFinal(ctx, created, *timeout, *poll, b.eachTenant(created, *concurrency, read))
	if err != nil {
		return err
	}
	verdictDur := time.Since(start)
	benchCPU1, _ := processCPU()
	atVerdict, err := mon.read(ctx)
	if err != nil {
		return err
	}
	after, err := mon.settle(ctx, atVerdict, *idle, start.Add(*timeout))
	if err != nil {
		return err
	}
	statuses := map[sello.Status]int{}
	for _, d := range created {
		statuses[d.status]++
	}

	// Baseline, after the load so it does not compete with it; the better
	// of this and the one before the load, since neighbours on a shared
	// machine can slow either (a low baseline would flatter the ratio).
	sigsAfter := rawRSASignatures(*baseline)
	sigs := max(sigsBefore.perSec, sigsAfter.perSec)
	sigCPU := min(sigsBefore.cpu, sigsAfter.cpu)

	createLat, e2e := make([]time.Duration, 0, len(created)), make([]time.Duration, 0, len(created))
	for _, d := range created {
		createLat = append(createLat, d.created.Sub(d.sent))
		e2e = append(e2e, d.final.Sub(d.sent))
	}
	verdictsPerSec := float64(final) / verdictDur.Seconds()
	fmt.Fprintf(stdout, "documents          %d (concurrency %d, %s)\n", *docs, *concurrency, env)
	if len(b.nodes) > 1 || len(ts) > 1 {
		fmt.Fprintf(stdout, "nodes, tenants     %d (requests in turn), %d (documents spread evenly)\n", len(b.nodes), len(ts))
	}
	fmt.Fprintf(stdout, "created/s          %.1f\n", float64(*docs)/createDur.Seconds())
	fmt.Fprintf(stdout, "verdicts/s         %.1f\n", verdictsPerSec)
	if len(b.nodes) > 1 {
		for i, line := range perNode(created, b.nodes, start, createDur) {
			fmt.Fprintf(stdout, "%-18s %s\n", fmt.Sprintf("node %d", i+1), line)
		}
	}
	fmt.Fprintf(stdout, "create p50/p99     %s / %s\n", percentile(createLat, 50), percentile(createLat, 99))
	fmt.Fprintf(stdout, "create→verdict     p50 %s / p99 %s\n", percentile(e2e, 50), percentile(e2e, 99))
	fmt.Fprintf(stdout, "outcomes           %v\n", statuses)
	if n := b.limited.Load(); n > 0 {
		fmt.Fprintf(stdout, "rate limited       %d requests answered 429 and sent again (the tenant's plan, not the pipeline, bounded this run)\n", n)
	}
	fmt.Fprintf(stdout, "raw RSA-2048 sig/s %.1f (%d cores, same run: the better of %.1f before the load and %.1f after)\n", sigs, runtime.GOMAXPROCS(0), sigsBefore.perSec, sigsAfter.perSec)
	fmt.Fprintf(stdout, "raw RSA-2048 CPU   %s a signature (%s)\n", ms(sigCPU), sigsAfter.how)
	fmt.Fprintf(stdout, "ratio              %.3f (verdicts/s ÷ raw signatures/s)\n", verdictsPerSec/sigs)
	if benchCPU1 > benchCPU0 {
		fmt.Fprintf(stdout, "bench CPU          %.2f s (this process, first create to last verdict)\n", (benchCPU1 - benchCPU0).Seconds())
	}
	mon.report(stdout, before, atVerdict, after, *idle, final, *docs, sigCPU)
	return nil
}

// benchTenants returns the tenants the flags name: --keys-file's first n
// (all when n is 0), or --key's.
func benchTenants(fs *flag.FlagSet, keysFile string, n int, key, rnc string) ([]benchTenant, error) {
	if n < 0 {
		return nil, usageError{"--tenants must not be negative"}
	}
	if keysFile == "" {
		if key == "" {
			return nil, usageError{"--key (or SELLO_BENCH_KEY) or --keys-file is required"}
		} else if n > 1 {
			return nil, usageError{"--tenants needs --keys-file (sello bench --setup-tenants N prints one)"}
		}
		return []benchTenant{{rnc: rnc, key: key}}, nil
	}
	var clash string
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "key" || f.Name == "rnc" {
			clash = f.Name
		}
	})
	if clash != "" {
		return nil, usageError{fmt.Sprintf("--%s and --keys-file exclude each other", clash)}
	}
	ts, err := readKeysFile(keysFile)
	if err != nil {
		return nil, err
	}
	if n > len(ts) {
		return nil, usageError{fmt.Sprintf("--tenants %d: %s has %d", n, keysFile, len(ts))}
	} else if n > 0 {
		ts = ts[:n]
	}
	return ts, nil
}

// perNode describes, for each node, the documents created through it: how
// many, at what rate, and the rate of their verdicts (which any node's
// workers may have reached: the jobs are shared).
func perNode(docs []benchDoc, nodes []string, start time.Time, createDur time.Duration) []string {
	lines := make([]string, len(nodes))
	for i, u := range nodes {
		n, last := 0, start
		for _, d := range docs {
			if d.node == i {
				n++
				if d.final.After(last) {
					last = d.final
				}
			}
		}
		lines[i] = fmt.Sprintf("%s: %d created (%.1f/s), their verdicts %.1f/s", u, n, float64(n)/createDur.Seconds(), float64(n)/max(last.Sub(start).Seconds(), 1e-9))
	}
	return lines
}

// ms renders d in milliseconds with three decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

type benchDoc struct {
	tenant, node         int // indexes in bench.tenants, bench.nodes
	encf                 string
	sent, created, final time.Time
	status               sello.Status
}

// benchTenant is a tenant the bench issues for.
type benchTenant struct {
	rnc, key string
	body     []byte // the document it creates, again and again
}

type bench struct {
	nodes   []string // base URLs
	tenants []benchTenant
	env     sello.Environment
	client  *http.Client
	turn    atomic.Uint64 // the next request's node, modulo len(nodes)
	limited atomic.Int64  // 429 answers waited out
}

// do sends one request as tenant t to the next node in turn; a 429 is
// waited out (Retry-After) and sent again, as a client of the API must, and
// counted in b.limited. It returns the node that answered.
func (b *bench) do(ctx context.Context, t int, path string, body []byte, want int, out any) (int, error) {
	for {
		node := int((b.turn.Add(1) - 1) % uint64(len(b.nodes)))
		err := b.once(ctx, b.nodes[node], b.tenants[t].key, path, body, want, out)
		var rl rateLimited
		if !errors.As(err, &rl) {
			return node, err
		}
		b.limited.Add(1)
		select {
		case <-ctx.Done():
			return node, ctx.Err()
		case <-time.After(rl.after):
		}
	}
}

// rateLimited is a 429 answer, to be retried after.
type rateLimited struct{ after time.Duration }

func (rl rateLimited) Error() string { return fmt.Sprintf("429, retry after %s", rl.after) }

func (b *bench) once(ctx context.Context, base, key, path string, body []byte, want int, out any) error {
	method := "POST"
	if body == nil {
		method = "GET"
	}
	req, err := http.NewRequestWithContext(ctx, method, base+"/"+string(b.env)+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	} else if resp.StatusCode == http.StatusTooManyRequests {
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return rateLimited{time.Duration(max(secs, 1)) * time.Second}
	} else if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", base, path, resp.StatusCode, bytes.TrimSpace(raw))
	}
	return json.Unmarshal(raw, out)
}

// create creates tenant t's document and returns its e-NCF and the node
// that created it.
func (b *bench) create(ctx context.Context, t int) (string, int, error) {
	var r struct {
		Document struct{ ENCF string } `json:"document"`
	}
	node, err := b.do(ctx, t, "/documentos-ecf", b.tenants[t].body, http.StatusAccepted, &r)
	return r.Document.ENCF, node, err
}

// markFunc records the status of tenant t's document encf.
type markFunc func(t int, encf string, st sello.Status)

// readVerdicts learns statuses from the server and reports each through
// mark; more says that more can be read at once.
type readVerdicts func(ctx context.Context, mark markFunc) (more bool, err error)

// waitFinal reads until every document has a final status, waiting poll
// after each read that has nothing more at once, and returns how many did.
// read may call mark from several goroutines.
func waitFinal(ctx context.Context, docs []benchDoc, timeout, poll time.Duration, read readVerdicts) (int, error) {
	deadline := time.Now().Add(timeout)
	type docKey struct {
		tenant int
		encf   string
	}
	index := map[docKey]int{}
	for i, d := range docs {
		index[docKey{d.tenant, d.encf}] = i
	}
	var mu sync.Mutex
	done := 0
	mark := func(t int, encf string, st sello.Status) {
		mu.Lock()
		defer mu.Unlock()
		if i, ok := index[docKey{t, encf}]; ok && st.Final() && docs[i].final.IsZero() {
			docs[i].final, docs[i].status = time.Now(), st
			done++
		}
	}
	for done < len(docs) {
		if time.Now().After(deadline) {
			return done, fmt.Errorf("%d of %d documents without a verdict after %s", len(docs)-done, len(docs), timeout)
		}
		more, err := read(ctx, mark)
		if err != nil {
			return done, err
		} else if more {
			continue
		}
		select {
		case <-ctx.Done():
			return done, ctx.Err()
		case <-time.After(poll):
		}
	}
	return done, nil
}

// readTenant reads the verdicts of tenant t's documents.
type readTenant func(ctx context.Context, t int, mark markFunc) (more bool, err error)

// eachTenant reads, with up to parallel requests at once, every tenant that
// has a document of docs still waiting. docs are read while waitFinal's
// mark writes them: eachTenant looks at them before its reads start.
func (b *bench) eachTenant(docs []benchDoc, parallel int, read readTenant) readVerdicts {
	return func(ctx context.Context, mark markFunc) (bool, error) {
		waiting := make([]bool, len(b.tenants))
		for _, d := range docs {
			if d.final.IsZero() {
				waiting[d.tenant] = true
			}
		}
		var more atomic.Bool
		var firstErr error
		var mu sync.Mutex
		sem := make(chan struct{}, parallel)
		var wg sync.WaitGroup
		for t, w := range waiting {
			if !w {
				continue
			}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				m, err := read(ctx, t, mark)
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
				} else if m {
					more.Store(true)
				}
			})
		}
		wg.Wait()
		return more.Load(), firstErr
	}
}

// statusReader asks status/batch for every document of docs still waiting.
func (b *bench) statusReader(docs []benchDoc) readTenant {
	return func(ctx context.Context, t int, mark markFunc) (bool, error) {
		var pending []string
		for _, d := range docs {
			if d.tenant == t && d.final.IsZero() {
				pending = append(pending, d.encf)
			}
		}
		for chunk := range slices.Chunk(pending, 1000) {
			req, _ := json.Marshal(map[string]any{"encfs": chunk})
			var r struct {
				Results []struct {
					ENCF     string `json:"encf"`
					Document struct {
						Status sello.Status `json:"status"`
					} `json:"document"`
				} `json:"results"`
			}
			if _, err := b.do(ctx, t, "/documentos-ecf/status/batch", req, http.StatusOK, &r); err != nil {
				return false, err
			}
			for _, res := range r.Results {
				mark(t, res.ENCF, res.Document.Status)
			}
		}
		return false, nil
	}
}

// eventPage is a page of GET /{env}/eventos, as much as the bench reads.
type eventPage struct {
	Events []struct {
		Type     sello.EventType `json:"type"`
		Document *struct {
			ENCF   string       `json:"encf"`
			Status sello.Status `json:"status"`
		} `json:"document"`
	} `json:"data"`
	Next    string `json:"nextCursor"`
	HasMore bool   `json:"hasMore"`
}

// events reads tenant t's page of events after cursor ("" for the oldest
// kept).
func (b *bench) events(ctx context.Context, t int, cursor string) (*eventPage, error) {
	path := "/eventos?limit=" + strconv.Itoa(sello.MaxPageSize)
	if cursor != "" {
		path += "&cursor=" + url.QueryEscape(cursor)
	}
	var p eventPage
	_, err := b.do(ctx, t, path, nil, http.StatusOK, &p)
	return &p, err
}

// eventsEnd returns the cursor after tenant t's last event kept now.
func (b *bench) eventsEnd(ctx context.Context, t int) (string, error) {
	cursor := ""
	for {
		p, err := b.events(ctx, t, cursor)
		if err != nil {
			return "", fmt.Errorf("read the events feed of %s (the key needs ecf:read, or use --follow status): %w", b.tenants[t].rnc, err)
		}
		cursor = p.Next
		if !p.HasMore {
			return cursor, nil
		}
	}
}

// eventsReader reads each tenant's events feed from its cursor, a page at a
// time: a document's final status only ever comes with its final event
// (ecf.accepted, ecf.accepted_conditional, ecf.rejected or ecf.failed). A
// feed read costs the server the new events only, where status/batch costs
// it every document still waiting. Each tenant's cursor is read and moved
// by one goroutine at a time.
func (b *bench) eventsReader(cursors []string) readTenant {
	return func(ctx context.Context, t int, mark markFunc) (bool, error) {
		p, err := b.events(ctx, t, cursors[t])
		if err != nil {
			return false, err
		}
		for _, ev := range p.Events {
			if ev.Document != nil {
				mark(t, ev.Document.ENCF, ev.Document.Status)
			}
		}
		cursors[t] = p.Next
		return p.HasMore, nil
	}
}

// rsaBaseline is a measurement of raw RSA-2048 signing on this machine.
type rsaBaseline struct {
	perSec float64       // signatures a second on every core
	cpu    time.Duration // CPU time of one signature
	how    string        // how cpu was measured
}

// rawRSASignatures signs SHA-256 digests with one RSA-2048 key on every
// core for d: the ceiling of what any signing service can do here. The CPU
// of a signature is this process's CPU time over the signatures where the
// system tells it (neighbours on a shared machine then slow the rate but
// not the CPU a signature takes), else the cores' time over them.
func rawRSASignatures(d time.Duration) rsaBaseline {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	digest := sha256.Sum256([]byte("sello"))
	var n atomic.Int64
	cpu0, measured := processCPU()
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for time.Now().Before(stop) {
				rsa.SignPKCS1v15(nil, key, crypto.SHA256, digest[:])
				n.Add(1)
			}
		})
	}
	wg.Wait()
	cpu1, _ := processCPU()
	sigs := max(n.Load(), 1)
	r := rsaBaseline{perSec: float64(sigs) / d.Seconds()}
	if measured && cpu1 > cpu0 {
		r.cpu, r.how = (cpu1-cpu0)/time.Duration(sigs), "the bench's CPU time ÷ its signatures, the better of before and after the load"
	} else {
		r.cpu, r.how = time.Duration(float64(runtime.GOMAXPROCS(0))*float64(time.Second)/r.perSec), "the cores' time ÷ the signatures, the better of before and after the load"
	}
	return r
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Millisecond)
}
