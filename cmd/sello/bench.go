package main

import (
	"bytes"
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

// runBench posts documents to a running server and waits for DGII's
// verdicts, then measures this machine's raw RSA-2048 signing rate on all
// cores, for the ratio verdicts/s ÷ signatures/s.
func runBench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sello bench", flag.ContinueOnError)
	url := fs.String("url", "http://127.0.0.1:8080", "the server's base URL")
	key := fs.String("key", getenv("SELLO_BENCH_KEY"), "an API key with ecf:create and status:read (env SELLO_BENCH_KEY)")
	envName := fs.String("env", "TesteCF", "environment")
	rnc := fs.String("rnc", demoRNC, "the key's tenant RNC (RNCEmisor of the documents)")
	docs := fs.Int("docs", 500, "documents to create")
	concurrency := fs.Int("concurrency", 16, "creates in flight at once")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up waiting for verdicts after this long")
	poll := fs.Duration("poll", 250*time.Millisecond, "how often to look for verdicts when there is nothing new (the resolution of create→verdict)")
	baseline := fs.Duration("baseline", 2*time.Second, "how long each of the two raw RSA measurements (before and after the load) signs")
	follow := fs.String("follow", "events", "how to learn the verdicts: events (GET /{env}/eventos from where the feed stood before the first create; needs ecf:read) or status (status/batch of every document still waiting)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *key == "" {
		return usageError{"--key (or SELLO_BENCH_KEY) is required"}
	}
	env, err := sello.ParseEnvironmentAnyCase(*envName)
	if err != nil {
		return err
	}
	if *follow != "events" && *follow != "status" {
		return usageError{"--follow must be events or status"}
	}
	// As many idle connections as requests in flight: Go's default keeps 2
	// per host and the bench would dial (and the server accept) per create.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = *concurrency + 1
	defer tr.CloseIdleConnections()
	b := &bench{url: strings.TrimRight(*url, "/"), key: *key, env: env, client: &http.Client{Timeout: time.Minute, Transport: tr}}
	body, _ := json.Marshal(ecf.SampleInvoice(*rnc, sello.TodayInDR(time.Now())))
	var cursor string
	if *follow == "events" {
		if cursor, err = b.eventsEnd(ctx); err != nil {
			return err
		}
	}

	sigsBefore := rawRSASignaturesPerSecond(*baseline)

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
				encf, err := b.create(ctx, body)
				if err != nil {
					failures.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				created[i] = benchDoc{encf: encf, sent: t0, created: time.Now()}
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
		read = b.eventsReader(cursor)
	}
	final, err := waitFinal(ctx, created, *timeout, *poll, read)
	if err != nil {
		return err
	}
	verdictDur := time.Since(start)
	statuses := map[sello.Status]int{}
	for _, d := range created {
		statuses[d.status]++
	}

	// Baseline, after the load so it does not compete with it; the better
	// of this and the one before the load, since neighbours on a shared
	// machine can slow either (a low baseline would flatter the ratio).
	sigsAfter := rawRSASignaturesPerSecond(*baseline)
	sigs := max(sigsBefore, sigsAfter)

	createLat, e2e := make([]time.Duration, 0, len(created)), make([]time.Duration, 0, len(created))
	for _, d := range created {
		createLat = append(createLat, d.created.Sub(d.sent))
		e2e = append(e2e, d.final.Sub(d.sent))
	}
	verdictsPerSec := float64(final) / verdictDur.Seconds()
	fmt.Fprintf(stdout, "documents          %d (concurrency %d, %s)\n", *docs, *concurrency, env)
	fmt.Fprintf(stdout, "created/s          %.1f\n", float64(*docs)/createDur.Seconds())
	fmt.Fprintf(stdout, "verdicts/s         %.1f\n", verdictsPerSec)
	fmt.Fprintf(stdout, "create p50/p99     %s / %s\n", percentile(createLat, 50), percentile(createLat, 99))
	fmt.Fprintf(stdout, "create→verdict     p50 %s / p99 %s\n", percentile(e2e, 50), percentile(e2e, 99))
	fmt.Fprintf(stdout, "outcomes           %v\n", statuses)
	if n := b.limited.Load(); n > 0 {
		fmt.Fprintf(stdout, "rate limited       %d requests answered 429 and sent again (the tenant's plan, not the pipeline, bounded this run)\n", n)
	}
	fmt.Fprintf(stdout, "raw RSA-2048 sig/s %.1f (%d cores, same run: the better of %.1f before the load and %.1f after)\n", sigs, runtime.GOMAXPROCS(0), sigsBefore, sigsAfter)
	fmt.Fprintf(stdout, "ratio              %.3f (verdicts/s ÷ raw signatures/s)\n", verdictsPerSec/sigs)
	return nil
}

type benchDoc struct {
	encf                 string
	sent, created, final time.Time
	status               sello.Status
}

type bench struct {
	url, key string
	env      sello.Environment
	client   *http.Client
	limited  atomic.Int64 // 429 answers waited out
}

// do sends one request; a 429 is waited out (Retry-After) and sent again,
// as a client of the API must, and counted in b.limited.
func (b *bench) do(ctx context.Context, path string, body []byte, want int, out any) error {
	for {
		err := b.once(ctx, path, body, want, out)
		var rl rateLimited
		if !errors.As(err, &rl) {
			return err
		}
		b.limited.Add(1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(rl.after):
		}
	}
}

// rateLimited is a 429 answer, to be retried after.
type rateLimited struct{ after time.Duration }

func (rl rateLimited) Error() string { return fmt.Sprintf("429, retry after %s", rl.after) }

func (b *bench) once(ctx context.Context, path string, body []byte, want int, out any) error {
	method := "POST"
	if body == nil {
		method = "GET"
	}
	req, err := http.NewRequestWithContext(ctx, method, b.url+"/"+string(b.env)+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", b.key)
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
		return fmt.Errorf("%s: %d %s", path, resp.StatusCode, bytes.TrimSpace(raw))
	}
	return json.Unmarshal(raw, out)
}

func (b *bench) create(ctx context.Context, body []byte) (string, error) {
	var r struct {
		Document struct{ ENCF string } `json:"document"`
	}
	err := b.do(ctx, "/documentos-ecf", body, http.StatusAccepted, &r)
	return r.Document.ENCF, err
}

// readVerdicts learns statuses from the server and reports each through
// mark; more says that more can be read at once.
type readVerdicts func(ctx context.Context, mark func(encf string, st sello.Status)) (more bool, err error)

// waitFinal reads until every document has a final status, waiting poll
// after each read that has nothing more at once, and returns how many did.
func waitFinal(ctx context.Context, docs []benchDoc, timeout, poll time.Duration, read readVerdicts) (int, error) {
	deadline := time.Now().Add(timeout)
	index := map[string]int{}
	for i, d := range docs {
		index[d.encf] = i
	}
	done := 0
	mark := func(encf string, st sello.Status) {
		if i, ok := index[encf]; ok && st.Final() && docs[i].final.IsZero() {
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

// statusReader asks status/batch for every document of docs still waiting.
func (b *bench) statusReader(docs []benchDoc) readVerdicts {
	return func(ctx context.Context, mark func(string, sello.Status)) (bool, error) {
		var pending []string
		for _, d := range docs {
			if d.final.IsZero() {
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
			if err := b.do(ctx, "/documentos-ecf/status/batch", req, http.StatusOK, &r); err != nil {
				return false, err
			}
			for _, res := range r.Results {
				mark(res.ENCF, res.Document.Status)
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

// events reads the page of events after cursor ("" for the oldest kept).
func (b *bench) events(ctx context.Context, cursor string) (*eventPage, error) {
	path := "/eventos?limit=" + strconv.Itoa(sello.MaxPageSize)
	if cursor != "" {
		path += "&cursor=" + url.QueryEscape(cursor)
	}
	var p eventPage
	return &p, b.do(ctx, path, nil, http.StatusOK, &p)
}

// eventsEnd returns the cursor after the last event kept now.
func (b *bench) eventsEnd(ctx context.Context) (string, error) {
	cursor := ""
	for {
		p, err := b.events(ctx, cursor)
		if err != nil {
			return "", fmt.Errorf("read the events feed (the key needs ecf:read, or use --follow status): %w", err)
		}
		cursor = p.Next
		if !p.HasMore {
			return cursor, nil
		}
	}
}

// eventsReader reads the events feed from cursor, a page at a time: a
// document's final status only ever comes with its final event
// (ecf.accepted, ecf.accepted_conditional, ecf.rejected or ecf.failed). A
// feed read costs the server the new events only, where status/batch costs
// it every document still waiting.
func (b *bench) eventsReader(cursor string) readVerdicts {
	return func(ctx context.Context, mark func(string, sello.Status)) (bool, error) {
		p, err := b.events(ctx, cursor)
		if err != nil {
			return false, err
		}
		for _, ev := range p.Events {
			if ev.Document != nil {
				mark(ev.Document.ENCF, ev.Document.Status)
			}
		}
		cursor = p.Next
		return p.HasMore, nil
	}
}

// rawRSASignaturesPerSecond signs SHA-256 digests with one RSA-2048 key on
// every core for d: the ceiling of what any signing service can do here.
func rawRSASignaturesPerSecond(d time.Duration) float64 {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	digest := sha256.Sum256([]byte("sello"))
	var n atomic.Int64
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
	return float64(n.Load()) / d.Seconds()
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Millisecond)
}
