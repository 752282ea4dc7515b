package sqlite_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLifecycleWrites is the store's share of a document's lifecycle:
// the create (number, document, history, ecf.queued) and the three
// transitions with their history rows and events (signed, with 4.4 KB of
// signed XML; submitted; accepted), from 16 goroutines as the pipeline
// writes. cpu-ns/op is the process's CPU per document (both cores), and
// rsa-sigs/op the same in raw RSA-2048 signatures measured right after: the
// issue's ratio (verdicts/s ÷ signatures/s on all cores) cannot pass
// 1 ÷ (1 + rsa-sigs/op) however cheap the rest of a document is.
// written-B/op is what the process wrote per document, group the
// transactions a commit carried on average.
func BenchmarkLifecycleWrites(b *testing.B) {
	db := MustOpen(b)
	ctx := b.Context()
	tn := storetest.MustCreateTenant(b, db)
	storetest.MustAddSequence(b, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 9_999_999)
	xml := bytes.Repeat([]byte("<Item>x</Item>"), 4400/14)
	at := time.Now()
	changes := []sello.DocumentChange{
		{From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned, SignedXML: xml, SecurityCode: "Ab3dE6",
			SignedAt: &at, QRURL: "https://ecf.dgii.gov.do/testecf/ConsultaTimbre?x", EventType: sello.EventECFSigned, Message: "signed"},
		{From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: "8f1c6c1e-0b6a-4d1e-9a43-3b1f2b7c9d10",
			EventType: sello.EventECFSubmitted, Message: "submitted"},
		{From: []sello.Status{sello.StatusSubmitted}, Status: sello.StatusAccepted, DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Aceptado"},
			EventType: sello.EventECFAccepted, Message: "accepted"},
	}
	var commits, pieces atomic.Int64
	db.ObserveCommits(func(n int, _ time.Duration) { commits.Add(1); pieces.Add(int64(n)) })
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.ResetTimer()
	cpu, written := cpuTime(), writtenBytes(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			doc, _, err := db.CreateDocument(ctx, newDoc(tn.ID, nil))
			if err != nil {
				b.Fatal(err)
			}
			for _, ch := range changes {
				if _, err := db.UpdateDocument(ctx, doc.TenantID, doc.Environment, doc.ID, ch); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	perDoc := float64(cpuTime()-cpu) / float64(b.N)
	written = writtenBytes(b) - written
	b.StopTimer()
	b.ReportMetric(perDoc, "cpu-ns/op")
	b.ReportMetric(perDoc/rsaCPU(b), "rsa-sigs/op")
	b.ReportMetric(float64(written)/float64(b.N), "written-B/op")
	b.ReportMetric(float64(pieces.Load())/float64(max(commits.Load(), 1)), "group")
}

// writtenBytes is what the process has written so far (/proc/self/io's
// wchar: SQLite's log and its checkpoints into the database), which the
// machine's load does not blur as it does the CPU.
func writtenBytes(b *testing.B) int64 {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skipf("written bytes: %v", err)
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no wchar in /proc/self/io")
	return 0
}

// rsaCPU is the CPU time of one raw RSA-2048 PKCS #1 v1.5 signature on this
// machine now, the unit the ratio counts in.
func rsaCPU(b *testing.B) float64 {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	digest := sha256.Sum256([]byte("sello"))
	const n = 300
	cpu := cpuTime()
	for range n {
		if _, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, digest[:]); err != nil {
			b.Fatal(err)
		}
	}
	return float64(cpuTime()-cpu) / n
}

// BenchmarkCreates: document creates through the store, one tenant's and
// 100 tenants' (storetest.CreateBenches), as ./postgres runs them.
func BenchmarkCreates(b *testing.B) {
	for _, c := range storetest.CreateBenches {
		b.Run(c.Name(), func(b *testing.B) { storetest.BenchCreates(b, MustOpen(b), c) })
	}
}

// BenchmarkLifecycle: documents' lives through the store, created then
// signed, submitted, accepted and delivered (storetest.BenchLifecycle),
// as ./postgres runs them.
func BenchmarkLifecycle(b *testing.B) {
	for _, c := range storetest.CreateBenches {
		b.Run(c.Name(), func(b *testing.B) { storetest.BenchLifecycle(b, MustOpen(b), c) })
	}
}
