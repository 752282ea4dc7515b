package xmldsig_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
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
