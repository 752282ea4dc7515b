package sello

import (
	"bufio"
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/alexedwards/argon2id"
)

// PasswordParams are the argon2id parameters of every new password hash:
// 19 MiB of memory, 2 passes, 1 lane (OWASP's Password Storage Cheat
// Sheet's first configuration). One hash takes 25–40 ms of one core on
// the project's 2-core machine (BenchmarkHashPassword, docs/benchmarks.md)
// and 19 MiB while it runs. Hashes keep their parameters in their
// encoding, so raising these later leaves old hashes working.
var PasswordParams = argon2id.Params{
	Memory:      19 * 1024,
	Iterations:  2,
	Parallelism: 1,
	SaltLength:  16,
	KeyLength:   32,
}

// The password policy's bounds, in characters.
const (
	MinPasswordLength = 12
	// MaxPasswordLength bounds the work one login asks of argon2id's
	// input hashing, and is longer than any passphrase a person types.
	MaxPasswordLength = 256
	// minPasswordDistinct refuses "aaaaaaaaaaaa"-like passwords.
	minPasswordDistinct = 5
)

// HashPassword returns the argon2id encoding of password with a new salt
// and PasswordParams.
func HashPassword(password string) (string, error) {
	return argon2id.CreateHash(password, &PasswordParams)
}

// dummyHash is what CheckPassword compares with when there is no hash, so
// that a login for an unknown email costs as much as for a known one.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPassword("sello: no such user, no such password")
	if err != nil {
		panic(err)
	}
	return h
})

// CheckPassword reports whether password matches hash, an argon2id
// encoding. With hash "" (an unknown user, or one who has not set a
// password) it spends the time of a check and answers false. An error
// means a hash that is not argon2id's.
func CheckPassword(password, hash string) (bool, error) {
	if hash == "" {
		argon2id.ComparePasswordAndHash(password, dummyHash())
		return false, nil
	}
	return argon2id.ComparePasswordAndHash(password, hash)
}

// commonPasswords is the list CheckPasswordPolicy refuses: the 10,000
// most common passwords of the dictionary of the npm package
// @zxcvbn-ts/language-common 4.1.3 (MIT; its src/passwords.json, in
// frequency order), and every one of its 49,233 entries of 12 characters
// or more. See docs/decisions.md.
//
//go:embed common_passwords.txt
var commonPasswordsText string

var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 10500)
	sc := bufio.NewScanner(strings.NewReader(commonPasswordsText))
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			m[line] = struct{}{}
		}
	}
	return m
})

// IsCommonPassword reports whether password, in lower case, is on the
// list of common passwords, or is one with digits or symbols only around
// it ("Dragon2024!" is "dragon").
func IsCommonPassword(password string) bool {
	p := strings.ToLower(password)
	common := commonPasswords()
	if _, ok := common[p]; ok {
		return true
	}
	core := strings.TrimFunc(p, func(r rune) bool { return !unicode.IsLetter(r) })
	_, ok := common[core]
	return ok && core != ""
}

// CheckPasswordPolicy returns nil if password may be a user's password:
// MinPasswordLength to MaxPasswordLength characters, not one of the most
// common passwords (IsCommonPassword), not the user's email or the part
// of it before the @, and not made of fewer than 5 different characters.
// Returns INVALID_REQUEST saying which rule it breaks.
func CheckPasswordPolicy(password, email string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		return Errorf(CodeInvalidRequest, "The password is not valid text.")
	case n < MinPasswordLength:
		return Errorf(CodeInvalidRequest, "The password must have at least %d characters.", MinPasswordLength)
	case n > MaxPasswordLength:
		return Errorf(CodeInvalidRequest, "The password must have at most %d characters.", MaxPasswordLength)
	}
	lower := strings.ToLower(strings.TrimSpace(password))
	if e := strings.ToLower(strings.TrimSpace(email)); e != "" {
		local, _, _ := strings.Cut(e, "@")
		if lower == e || lower == local {
			return Errorf(CodeInvalidRequest, "The password must not be your email address.")
		}
	}
	if IsCommonPassword(password) {
		return Errorf(CodeInvalidRequest, "The password is one of the most common passwords: choose another.")
	}
	distinct := map[rune]bool{}
	for _, r := range lower {
		distinct[r] = true
	}
	if len(distinct) < minPasswordDistinct {
		return Errorf(CodeInvalidRequest, "The password must have at least %d different characters.", minPasswordDistinct)
	}
	return nil
}
