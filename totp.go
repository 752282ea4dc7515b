package sello

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"hash"
	"net/url"
	"strings"
	"time"
)

// The portal's second factor: TOTP (RFC 6238) with HMAC-SHA1, 6 digits and
// 30-second steps, the parameters every authenticator app reads from an
// otpauth:// URI, and single-use recovery codes.

// TOTP's parameters.
const (
	TOTPDigits = 6
	TOTPPeriod = 30 * time.Second
	// TOTPSkew is how many steps before and after the current one a code
	// is accepted in, for clocks that drift (RFC 6238 §5.2).
	TOTPSkew = 1
	// totpSecretLen is the secret's length: 160 bits, HMAC-SHA1's output
	// (RFC 4226 §4 R6).
	totpSecretLen = 20
)

// NewTOTPSecret returns a new random TOTP secret.
func NewTOTPSecret() []byte {
	b := make([]byte, totpSecretLen)
	rand.Read(b)
	return b
}

// totpEncoding is base32 without padding, as otpauth:// URIs carry it.
var totpEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// TOTPSecretText is the secret as a person types it into an app: base32.
func TOTPSecretText(secret []byte) string { return totpEncoding.EncodeToString(secret) }

// TOTPURI is the otpauth:// URI an authenticator app reads (from a QR
// code) to add the secret for account under issuer.
func TOTPURI(issuer, account string, secret []byte) string {
	q := url.Values{}
	q.Set("secret", TOTPSecretText(secret))
	q.Set("issuer", issuer)
	q.Set("algorithm", "SHA1")
	q.Set("digits", fmt.Sprint(TOTPDigits))
	q.Set("period", fmt.Sprint(int(TOTPPeriod/time.Second)))
	label := url.PathEscape(issuer + ":" + account)
	return "otpauth://totp/" + label + "?" + q.Encode()
}

// TOTPStep is the time step t falls in: the number of periods since the
// Unix epoch (RFC 6238's T).
func TOTPStep(t time.Time) int64 { return t.Unix() / int64(TOTPPeriod/time.Second) }

// TOTPCode is the code of secret at time step.
func TOTPCode(secret []byte, step int64) string {
	return hotp(sha1.New, secret, step, TOTPDigits)
}

// hotp is RFC 4226's HOTP with RFC 6238's choice of hash: the dynamic
// truncation of HMAC(secret, counter) to digits decimal digits.
func hotp(h func() hash.Hash, secret []byte, counter int64, digits int) string {
	m := hmac.New(h, secret)
	var c [8]byte
	binary.BigEndian.PutUint64(c[:], uint64(counter))
	m.Write(c[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	bin := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, bin%mod)
}

// CheckTOTP returns the step whose code code is, among the steps from
// TOTPSkew before now's to TOTPSkew after, later than lastStep (the user's
// TOTPLastStep: a code works once), and whether there is one. Spaces in
// code are ignored. The caller records the step with
// PeopleStore.UseTOTPStep, which refuses it if another request used it
// first.
func CheckTOTP(secret []byte, code string, now time.Time, lastStep int64) (step int64, ok bool) {
	code = strings.ReplaceAll(code, " ", "")
	if len(code) != TOTPDigits {
		return 0, false
	}
	cur := TOTPStep(now)
	for s := cur - TOTPSkew; s <= cur+TOTPSkew; s++ {
		if s <= lastStep {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(TOTPCode(secret, s)), []byte(code)) == 1 {
			return s, true
		}
	}
	return 0, false
}

// totpAAD binds a sealed TOTP secret to its user: a sealed secret copied
// to another user's row does not open.
func totpAAD(userID string) []byte { return []byte("sello totp secret\x00" + userID) }

// SealTOTPSecret encrypts a user's TOTP secret with the master key, for
// User.TOTPSecret.
func SealTOTPSecret(k *MasterKey, userID string, secret []byte) []byte {
	return k.Seal(secret, totpAAD(userID))
}

// OpenTOTPSecret decrypts what SealTOTPSecret sealed for the same user.
func OpenTOTPSecret(k *MasterKey, userID string, sealed []byte) ([]byte, error) {
	return k.Open(sealed, totpAAD(userID))
}

// RecoveryCodeCount is how many recovery codes a user gets at once.
const RecoveryCodeCount = 10

// recoveryEncoding is base32's alphabet in lower case (letters and 2–7:
// no 0, 1, 8 or 9 to confuse with O, I, B or g).
var recoveryEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewRecoveryCodes returns RecoveryCodeCount new recovery codes, to show
// the user once, and their hashes (HashRecoveryCode), for
// User.RecoveryCodeHashes. Each code is 16 base32 characters (80 random
// bits) in groups of four: "abcd-efgh-ijkl-mnop".
func NewRecoveryCodes() (codes []string, hashes [][]byte) {
	for range RecoveryCodeCount {
		b := make([]byte, 10)
		rand.Read(b)
		s := recoveryEncoding.EncodeToString(b)
		code := s[0:4] + "-" + s[4:8] + "-" + s[8:12] + "-" + s[12:16]
		codes = append(codes, code)
		hashes = append(hashes, HashRecoveryCode(code))
	}
	return codes, hashes
}

// HashRecoveryCode is the stored form of a recovery code: the SHA-256 of
// the code in lower case without spaces or dashes, so that it may be
// typed either way. 80 random bits make a fast hash enough.
func HashRecoveryCode(code string) []byte {
	c := strings.ToLower(code)
	c = strings.NewReplacer("-", "", " ", "").Replace(c)
	h := sha256.Sum256([]byte("sello recovery code\x00" + c))
	return h[:]
}

// CheckSecondFactor checks code, a TOTP code or a recovery code, for the
// user, and spends it: a TOTP code's step is recorded (UseTOTPStep), a
// recovery code removed (UseRecoveryCode), so that neither works twice.
// It opens the user's sealed secret with k. A second factor counts once
// confirmed (TOTPConfirmedAt); while a user enrols, the portal checks the
// new secret's code with CheckTOTP and UseTOTPStep itself. Returns UNAUTHENTICATED for a
// wrong, used or replayed code, INVALID_REQUEST if the user has no second
// factor.
func CheckSecondFactor(ctx context.Context, s PeopleStore, k *MasterKey, u *User, code string, now time.Time) error {
	if u.TOTPSecret == nil || u.TOTPConfirmedAt == nil {
		return Errorf(CodeInvalidRequest, "The user has no second factor.")
	}
	wrong := Errorf(CodeUnauthenticated, "The code is wrong or was used already.")
	if c := strings.ReplaceAll(code, " ", ""); len(c) == TOTPDigits {
		secret, err := OpenTOTPSecret(k, u.ID, u.TOTPSecret)
		if err != nil {
			return fmt.Errorf("check second factor: %w", err)
		}
		step, ok := CheckTOTP(secret, c, now, u.TOTPLastStep)
		if !ok {
			return wrong
		}
		if err := s.UseTOTPStep(ctx, u.ID, step); ErrorCodeOf(err) == CodeConflict {
			return wrong
		} else if err != nil {
			return err
		}
		u.TOTPLastStep = step
		return nil
	}
	h := HashRecoveryCode(code)
	if err := s.UseRecoveryCode(ctx, u.ID, h); ErrorCodeOf(err) == CodeNotFound {
		return wrong
	} else if err != nil {
		return err
	}
	for i, x := range u.RecoveryCodeHashes {
		if subtle.ConstantTimeCompare(x, h) == 1 {
			u.RecoveryCodeHashes = append(u.RecoveryCodeHashes[:i:i], u.RecoveryCodeHashes[i+1:]...)
			break
		}
	}
	return nil
}
