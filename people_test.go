package sello_test

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"hash"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// TestTOTPRFC6238 checks the TOTP code against RFC 6238's Appendix B
// vectors for SHA-1, SHA-256 and SHA-512 (8 digits) and, for the portal's
// parameters (SHA-1, 6 digits), against the same vectors' last 6 digits.
func TestTOTPRFC6238(t *testing.T) {
	seeds := map[string][]byte{
		"SHA1":   []byte("12345678901234567890"),
		"SHA256": []byte("12345678901234567890123456789012"),
		"SHA512": []byte("1234567890123456789012345678901234567890123456789012345678901234"),
	}
	hashes := map[string]func() hash.Hash{"SHA1": sha1.New, "SHA256": sha256.New, "SHA512": sha512.New}
	for _, v := range []struct {
		unix int64
		want map[string]string
	}{
		{59, map[string]string{"SHA1": "94287082", "SHA256": "46119246", "SHA512": "90693936"}},
		{1111111109, map[string]string{"SHA1": "07081804", "SHA256": "68084774", "SHA512": "25091201"}},
		{1111111111, map[string]string{"SHA1": "14050471", "SHA256": "67062674", "SHA512": "99943326"}},
		{1234567890, map[string]string{"SHA1": "89005924", "SHA256": "91819424", "SHA512": "93441116"}},
		{2000000000, map[string]string{"SHA1": "69279037", "SHA256": "90698825", "SHA512": "38618901"}},
		{20000000000, map[string]string{"SHA1": "65353130", "SHA256": "77737706", "SHA512": "47863826"}},
	} {
		step := sello.TOTPStep(time.Unix(v.unix, 0))
		for alg, want := range v.want {
			if got := sello.HOTP(hashes[alg], seeds[alg], step, 8); got != want {
				t.Errorf("%s at %d: got %s, want %s", alg, v.unix, got, want)
			}
		}
		if got, want := sello.TOTPCode(seeds["SHA1"], step), v.want["SHA1"][2:]; got != want {
			t.Errorf("TOTPCode at %d: got %s, want %s", v.unix, got, want)
		}
	}
}

func TestCheckTOTP(t *testing.T) {
	secret := sello.NewTOTPSecret()
	now := time.Unix(1_800_000_015, 0) // mid-step
	cur := sello.TOTPStep(now)
	for _, tt := range []struct {
		name     string
		step     int64
		lastStep int64
		ok       bool
	}{
		{"OKCurrent", cur, 0, true},
		{"OKPrevious", cur - 1, 0, true},
		{"OKNext", cur + 1, 0, true},
		{"ErrTwoBefore", cur - 2, 0, false},
		{"ErrTwoAfter", cur + 2, 0, false},
		{"ErrReplay", cur, cur, false},
		{"ErrEarlierThanUsed", cur - 1, cur, false},
		{"OKLaterThanUsed", cur + 1, cur, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			step, ok := sello.CheckTOTP(secret, sello.TOTPCode(secret, tt.step), now, tt.lastStep)
			if ok != tt.ok || (ok && step != tt.step) {
				t.Fatalf("got step %d, %v; want %d, %v", step, ok, tt.step, tt.ok)
			}
		})
	}
	t.Run("ErrOtherSecret", func(t *testing.T) {
		if _, ok := sello.CheckTOTP(sello.NewTOTPSecret(), sello.TOTPCode(secret, cur), now, 0); ok {
			t.Fatal("another secret's code accepted (1 in 3×10⁵ by chance)")
		}
	})
	t.Run("OKSpaces", func(t *testing.T) {
		c := sello.TOTPCode(secret, cur)
		if _, ok := sello.CheckTOTP(secret, c[:3]+" "+c[3:], now, 0); !ok {
			t.Fatal("a code typed as 123 456 refused")
		}
	})
	t.Run("URI", func(t *testing.T) {
		uri := sello.TOTPURI("Sello", "ana@example.com", secret)
		for _, want := range []string{"otpauth://totp/Sello:ana@example.com?", "secret=" + sello.TOTPSecretText(secret), "issuer=Sello", "digits=6", "period=30"} {
			if !strings.Contains(uri, want) {
				t.Errorf("%s lacks %s", uri, want)
			}
		}
	})
}

func TestTOTPSecretSealed(t *testing.T) {
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	secret := sello.NewTOTPSecret()
	sealed := sello.SealTOTPSecret(mk, "user-a", secret)
	if bytes.Contains(sealed, secret) {
		t.Fatal("the sealed secret contains the secret")
	}
	got, err := sello.OpenTOTPSecret(mk, "user-a", sealed)
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open: %x, %v", got, err)
	}
	if _, err := sello.OpenTOTPSecret(mk, "user-b", sealed); err == nil {
		t.Fatal("user-a's sealed secret opened as user-b's")
	}
}

func TestRecoveryCodes(t *testing.T) {
	codes, hashes := sello.NewRecoveryCodes()
	if len(codes) != sello.RecoveryCodeCount || len(hashes) != len(codes) {
		t.Fatalf("got %d codes, %d hashes", len(codes), len(hashes))
	}
	seen := map[string]bool{}
	for i, c := range codes {
		if len(c) != 19 || strings.Count(c, "-") != 3 || seen[c] {
			t.Errorf("code %q: want 4 groups of 4, all different", c)
		}
		seen[c] = true
		if !bytes.Equal(sello.HashRecoveryCode(c), hashes[i]) {
			t.Errorf("hash of %q differs from the one returned", c)
		}
		typed := strings.ToUpper(strings.ReplaceAll(c, "-", " "))
		if !bytes.Equal(sello.HashRecoveryCode(typed), hashes[i]) {
			t.Errorf("%q typed as %q hashes differently", c, typed)
		}
	}
}

func TestPasswordPolicy(t *testing.T) {
	for _, tt := range []struct {
		name, password, email, msg string
	}{
		{"OK", "caña de azúcar 1982", "ana@example.com", ""},
		{"OKPassphrase", "correct horse battery staple", "ana@example.com", ""},
		{"ErrShort", "c0rto-Azul!", "ana@example.com", "at least 12 characters"},
		{"ErrShortCountsCharacters", "ñññññáéíóú", "ana@example.com", "at least 12 characters"},
		{"ErrLong", strings.Repeat("abcdefgh", 33), "ana@example.com", "at most 256"},
		{"ErrCommon", "qwertyuiop12", "ana@example.com", "most common"},
		{"ErrCommonCase", "PASSWORD1234", "ana@example.com", "most common"},
		{"ErrCommonWithDigitsAround", "2024Dragon!!!!", "ana@example.com", "most common"},
		{"ErrEmail", "Ana.Perez@Example.com", "ana.perez@example.com", "email"},
		{"ErrEmailLocalPart", "ana.perez.1990", "ana.perez.1990@example.com", "email"},
		{"ErrRepeated", "abababababababab", "ana@example.com", "5 different"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := sello.CheckPasswordPolicy(tt.password, tt.email)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *sello.Error
			if !errors.As(err, &e) || e.Code != sello.CodeInvalidRequest || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("got %v; want INVALID_REQUEST with %q", err, tt.msg)
			}
		})
	}
	t.Run("CommonList", func(t *testing.T) {
		for _, p := range []string{"123456", "password", "iloveyou", "1qaz2wsx3edc"} {
			if !sello.IsCommonPassword(p) {
				t.Errorf("%q is not on the list", p)
			}
		}
	})
}

func TestHashPassword(t *testing.T) {
	h, err := sello.HashPassword("caña de azúcar 1982")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q: want argon2id with m=19456,t=2,p=1", h)
	}
	h2, _ := sello.HashPassword("caña de azúcar 1982")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	for _, tt := range []struct {
		password, hash string
		want           bool
	}{
		{"caña de azúcar 1982", h, true},
		{"caña de azucar 1982", h, false},
		{"caña de azúcar 1982", "", false},
	} {
		if ok, err := sello.CheckPassword(tt.password, tt.hash); ok != tt.want || err != nil {
			t.Errorf("CheckPassword(%q, %.20q): %v, %v; want %v", tt.password, tt.hash, ok, err, tt.want)
		}
	}
	if _, err := sello.CheckPassword("x", "$2a$10$bcrypt"); err == nil {
		t.Error("a bcrypt hash checked without error")
	}
}

// BenchmarkHashPassword is one login's argon2id cost with PasswordParams
// (docs/benchmarks.md).
func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		if _, err := sello.HashPassword("caña de azúcar 1982"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNormalizeEmail(t *testing.T) {
	for in, want := range map[string]string{" Ana.Perez@Example.COM ": "ana.perez@example.com", "a+b@x.do": "a+b@x.do"} {
		if got, err := sello.NormalizeEmail(in); got != want || err != nil {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ana", "ana@localhost", "Ana <ana@x.do>", "ana@x.do, b@x.do"} {
		if _, err := sello.NormalizeEmail(in); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Errorf("%q: got %v; want INVALID_REQUEST", in, err)
		}
	}
}

func newChain(n int) []*sello.AuditEntry {
	var out []*sello.AuditEntry
	var prev []byte
	for i := range n {
		e := &sello.AuditEntry{
			Seq: int64(i + 1), ID: "id-" + string(rune('a'+i)), TenantID: "t1", ActorID: "u1", ActorEmail: "ana@example.com",
			Action: "api_key.created", Target: "k1", Address: "192.0.2.1",
			Before: []byte(`{"name":"a"}`), After: []byte(`{"name":"b"}`),
			At: time.Date(2026, 3, 10, 18, 0, i, 123456000, time.UTC), PrevHash: prev,
		}
		e.Hash = sello.AuditHash(prev, e)
		prev = e.Hash
		out = append(out, e)
	}
	return out
}

func TestVerifyAuditChain(t *testing.T) {
	if err := sello.VerifyAuditChain(newChain(5)); err != nil {
		t.Fatalf("whole chain: %v", err)
	}
	if err := sello.VerifyAuditChain(nil); err != nil {
		t.Fatalf("empty chain: %v", err)
	}
	// Every field is covered: changing any one breaks the chain there.
	for name, edit := range map[string]func(e *sello.AuditEntry){
		"Seq":        func(e *sello.AuditEntry) { e.Seq = 30 },
		"ID":         func(e *sello.AuditEntry) { e.ID += "x" },
		"TenantID":   func(e *sello.AuditEntry) { e.TenantID = "t2" },
		"ActorID":    func(e *sello.AuditEntry) { e.ActorID = "u2" },
		"ActorEmail": func(e *sello.AuditEntry) { e.ActorEmail = "eve@example.com" },
		"Action":     func(e *sello.AuditEntry) { e.Action = "api_key.revoked" },
		"Target":     func(e *sello.AuditEntry) { e.Target = "k2" },
		"Address":    func(e *sello.AuditEntry) { e.Address = "192.0.2.2" },
		"Before":     func(e *sello.AuditEntry) { e.Before = nil },
		"After":      func(e *sello.AuditEntry) { e.After = []byte(`{"name":"c"}`) },
		"At":         func(e *sello.AuditEntry) { e.At = e.At.Add(time.Microsecond) },
		"PrevHash":   func(e *sello.AuditEntry) { e.PrevHash = bytes.Clone(e.Hash) },
		"Hash":       func(e *sello.AuditEntry) { e.Hash[0] ^= 1 },
	} {
		t.Run("ErrEdited"+name, func(t *testing.T) {
			c := newChain(5)
			edit(c[2])
			wantBroken(t, sello.VerifyAuditChain(c), 3)
		})
	}
	t.Run("ErrEditedWithHashRecomputed", func(t *testing.T) {
		c := newChain(5)
		c[2].Action = "api_key.revoked"
		c[2].Hash = sello.AuditHash(c[2].PrevHash, c[2])
		wantBroken(t, sello.VerifyAuditChain(c), 4)
	})
	t.Run("ErrRemoved", func(t *testing.T) {
		c := newChain(5)
		wantBroken(t, sello.VerifyAuditChain(append(c[:1:1], c[2:]...)), 2)
	})
	t.Run("ErrFirstRemoved", func(t *testing.T) {
		wantBroken(t, sello.VerifyAuditChain(newChain(3)[1:]), 1)
	})
	t.Run("FieldBoundaries", func(t *testing.T) {
		// Moving a character from one field to the next changes the hash.
		a, b := newChain(1)[0], newChain(1)[0]
		a.ActorEmail, a.Action = "ana@example.coma", "pi_key.created"
		b.ActorEmail, b.Action = "ana@example.com", "api_key.created"
		if bytes.Equal(sello.AuditHash(nil, a), sello.AuditHash(nil, b)) {
			t.Fatal("two different entries hash alike")
		}
	})
}

func wantBroken(t *testing.T, err error, seq int64) {
	t.Helper()
	var ce *sello.AuditChainError
	if !errors.As(err, &ce) || ce.Seq != seq || ce.TenantID != "t1" {
		t.Fatalf("got %v; want the chain broken at seq %d", err, seq)
	}
}
