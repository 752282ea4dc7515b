package xmldsig_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/xmldsig"
)

func TestLargeDocument(t *testing.T) {
	s := MustSigner(t)
	doc := ecfWithItems(1000)
	start := time.Now()
	signed := MustSign(t, s, doc)
	if _, err := xmldsig.Verify(signed); err != nil {
		t.Fatalf("Verify %d bytes: %v", len(signed), err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("sign and verify of %d bytes took %v", len(signed), d)
	}
	if _, err := xmldsig.Verify(replaceOnce(t, signed, "<NumeroLinea>1000<", "<NumeroLinea>1001<")); !errorsIs(err, xmldsig.ErrDigestMismatch) {
		t.Errorf("tampered last item: got %v", err)
	}
}

// BenchmarkRawRSASign is the baseline: the RSA operation alone, with the
// same key, over a SHA-256.
func BenchmarkRawRSASign(b *testing.B) {
	s := MustSigner(b)
	h := sha256.Sum256([]byte(smallECF))
	for b.Loop() {
		if _, err := rsa.SignPKCS1v15(rand.Reader, s.Key, crypto.SHA256, h[:]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawRSAVerify is the baseline of the Verify benchmark.
func BenchmarkRawRSAVerify(b *testing.B) {
	s := MustSigner(b)
	h := sha256.Sum256([]byte(smallECF))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.Key, crypto.SHA256, h[:])
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := rsa.VerifyPKCS1v15(&s.Key.PublicKey, crypto.SHA256, h[:], sig); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkSign(b *testing.B, doc string) {
	s := MustSigner(b)
	in := []byte(doc)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Sign(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSign1KB(b *testing.B)      { benchmarkSign(b, smallECF1KB) }
func BenchmarkSign300Items(b *testing.B) { benchmarkSign(b, ecfWithItems(300)) }

func BenchmarkVerify1000Items(b *testing.B) {
	signed := MustSign(b, MustSigner(b), ecfWithItems(1000))
	b.SetBytes(int64(len(signed)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := xmldsig.Verify(signed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignVsRSA interleaves Sign and the raw RSA signature in each
// iteration and reports their ratio, which holds up on a busy machine
// better than two benchmarks run one after the other.
func BenchmarkSignVsRSA(b *testing.B) {
	for _, bc := range []struct {
		name, doc string
	}{{"1KB", smallECF1KB}, {"300Items", ecfWithItems(300)}} {
		b.Run(bc.name, func(b *testing.B) {
			s := MustSigner(b)
			in := []byte(bc.doc)
			h := sha256.Sum256(in)
			var raw, sign time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := rsa.SignPKCS1v15(rand.Reader, s.Key, crypto.SHA256, h[:]); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := s.Sign(in); err != nil {
					b.Fatal(err)
				}
				sign += time.Since(t1)
				raw += t1.Sub(t0)
			}
			b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "rsa-ns/op")
			b.ReportMetric(float64(sign.Nanoseconds())/float64(b.N), "sign-ns/op")
			b.ReportMetric(float64(sign)/float64(raw), "sign/rsa")
		})
	}
}

// BenchmarkVerify1KB verifies a typical 1 KB compact e-CF as Sign writes it.
func BenchmarkVerify1KB(b *testing.B) {
	signed := MustSign(b, MustSigner(b), smallECF1KB)
	b.SetBytes(int64(len(signed)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := xmldsig.Verify(signed); err != nil {
			b.Fatal(err)
		}
	}
}

// canonDocs are the documents of the canonicalization benchmarks: Sello's
// compact e-CFs of 1 item (1.2 KB), 300 items (~100 KB) and 1,000 items
// (~340 KB).
func canonDocs() []struct{ name, doc string } {
	return []struct{ name, doc string }{
		{"1KB", smallECF1KB},
		{"300Items", ecfWithItems(300)},
		{"1000Items", ecfWithItems(1000)},
	}
}

// canonWays are the ways of reading a document the canonicalization
// benchmarks compare, each checked to give Sign's canonical form
// (encoding/xml, the baseline, only reads it).
func canonWays(tb testing.TB, doc []byte) []struct {
	name string
	run  func() error
} {
	tb.Helper()
	c14n, err := xmldsig.CanonicalizeTree(doc)
	if err != nil {
		tb.Fatal(err)
	}
	want, err := xmldsig.CanonicalizeETree(doc)
	if err != nil {
		tb.Fatal(err)
	}
	if got, ok := xmldsig.CanonicalizeOnePass(doc); !ok || !bytes.Equal(got, want) {
		tb.Fatalf("one-pass canonical form (ok %v) differs from etree's", ok)
	}
	if got := c14n(); !bytes.Equal(got, want) {
		tb.Fatal("c14n over the parsed tree differs from the etree path")
	}
	return []struct {
		name string
		run  func() error
	}{
		{"xml.Decoder", func() error { return decodeTokens(doc) }},
		{"c14n", func() error { c14n(); return nil }},
		{"etree+c14n", func() error { _, err := xmldsig.CanonicalizeETree(doc); return err }},
		{"one-pass", func() error { xmldsig.CanonicalizeOnePass(doc); return nil }},
	}
}

// decodeTokens reads doc with encoding/xml to the end: the standard
// library's cost of reading it, for scale.
func decodeTokens(doc []byte) error {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// BenchmarkCanonicalize is Sign's canonicalization without the signature:
// c14n.go alone over a tree etree has already parsed (Sign's fallback and
// Verify's slow path), etree's parsing with it, and the one-pass
// canonicalizer Sign uses on Sello's compact XML (fastpath.go), beside
// encoding/xml reading the same bytes.
func BenchmarkCanonicalize(b *testing.B) {
	for _, d := range canonDocs() {
		doc := []byte(d.doc)
		for _, w := range canonWays(b, doc) {
			b.Run(d.name+"/"+w.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					if err := w.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkCanonicalizeVsRSA interleaves a raw RSA signature with each way
// of BenchmarkCanonicalize in every iteration and reports each as a
// fraction of the signature, as BenchmarkSignVsRSA does for Sign.
func BenchmarkCanonicalizeVsRSA(b *testing.B) {
	s := MustSigner(b)
	for _, d := range canonDocs() {
		doc := []byte(d.doc)
		ways := canonWays(b, doc)
		b.Run(d.name, func(b *testing.B) {
			h := sha256.Sum256(doc)
			var raw time.Duration
			took := make([]time.Duration, len(ways))
			for b.Loop() {
				t0 := time.Now()
				if _, err := rsa.SignPKCS1v15(rand.Reader, s.Key, crypto.SHA256, h[:]); err != nil {
					b.Fatal(err)
				}
				raw += time.Since(t0)
				for i, w := range ways {
					t := time.Now()
					if err := w.run(); err != nil {
						b.Fatal(err)
					}
					took[i] += time.Since(t)
				}
			}
			b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "rsa-ns/op")
			for i, w := range ways {
				b.ReportMetric(float64(took[i])/float64(raw), w.name+"/rsa")
			}
		})
	}
}

// BenchmarkVerifyAttributes verifies documents with many attributes.
// Root/N has N on the root, refused before anything is parsed (xmlchar's
// limits, first thing Verify does): the cost stays flat where it used to
// grow with the square of N (27 s for 80,000 attributes). Namespaces/20k
// has 20,000 namespace declarations on the root, refused the same way.
// Spread/N is a signed document with N attributes over N/16 elements,
// within the limits, verified: its cost grows linearly with N.
func BenchmarkVerifyAttributes(b *testing.B) {
	signed := MustSign(b, MustSigner(b), smallECF)
	run := func(b *testing.B, doc []byte, ok bool) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if _, err := xmldsig.Verify(doc); (err == nil) != ok {
				b.Fatal(err)
			}
		}
	}
	for _, n := range []int{1000, 10_000, 100_000, 200_000} {
		doc := bytes.Replace(signed, []byte("<ECF>"), []byte("<ECF"+manyAttrs(n, false)+">"), 1)
		b.Run(fmt.Sprintf("Root/%dk", n/1000), func(b *testing.B) { run(b, doc, false) })
	}
	ns := bytes.Replace(signed, []byte("<ECF>"), []byte("<ECF"+manyAttrs(20_000, true)+">"), 1)
	b.Run("Namespaces/20k", func(b *testing.B) { run(b, ns, false) })
	for _, n := range []int{1000, 10_000, 100_000} {
		var body strings.Builder
		for range n / 16 {
			body.WriteString("<E" + manyAttrs(16, false) + "></E>")
		}
		doc := MustSign(b, MustSigner(b), strings.Replace(smallECF, "<Encabezado>", body.String()+"<Encabezado>", 1))
		b.Run(fmt.Sprintf("Spread/%dk", n/1000), func(b *testing.B) { run(b, doc, true) })
	}
}
