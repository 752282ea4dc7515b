package sello

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// MasterKey encrypts secrets at rest (certificate keys, webhook secrets)
// with AES-256-GCM. It comes from SELLO_MASTER_KEY (32 bytes, base64) or, in
// demo mode, from a file generated in the data folder.
type MasterKey struct {
	aead cipher.AEAD
	// derive is the key DeriveKey's keys come from, apart from the one
	// that encrypts.
	derive []byte
}

// sealVersion prefixes every sealed value, so the scheme can change.
const sealVersion = 1

// ParseMasterKey reads a base64 (standard or URL, padded or not) 32-byte
// key. Returns INVALID_REQUEST with a precise message.
func ParseMasterKey(s string) (*MasterKey, error) {
	var key []byte
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			key = b
			break
		}
	}
	if key == nil {
		return nil, Errorf(CodeInvalidRequest, "The master key must be base64 (e.g. the output of: openssl rand -base64 32).")
	} else if len(key) != 32 {
		return nil, Errorf(CodeInvalidRequest, "The master key must be 32 bytes, not %d.", len(key))
	}
	return NewMasterKey(key)
}

// NewMasterKey returns a master key of 32 raw bytes.
func NewMasterKey(key []byte) (*MasterKey, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("master key: need 32 bytes, have %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &MasterKey{aead: aead, derive: hmacSHA256(key, []byte("sello master key: derived keys"))}, nil
}

// DeriveKey returns a 32-byte key for purpose, the same for every node
// that shares the master key and independent of the key of every other
// purpose (HMAC-SHA256 of the purpose).
func (k *MasterKey) DeriveKey(purpose string) []byte {
	return hmacSHA256(k.derive, []byte(purpose))
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// GenerateMasterKey returns a new random key, base64-encoded.
func GenerateMasterKey() string {
	key := make([]byte, 32)
	rand.Read(key)
	return base64.StdEncoding.EncodeToString(key)
}

// Seal encrypts plaintext; aad (not secret) must be given again to Open.
func (k *MasterKey) Seal(plaintext, aad []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	out := append([]byte{sealVersion}, nonce...)
	return k.aead.Seal(out, nonce, plaintext, aad)
}

// Open decrypts what Seal produced with the same aad.
func (k *MasterKey) Open(sealed, aad []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < 1+n || sealed[0] != sealVersion {
		return nil, errors.New("open sealed secret: unknown format")
	}
	out, err := k.aead.Open(nil, sealed[1:1+n], sealed[1+n:], aad)
	if err != nil {
		return nil, errors.New("open sealed secret: wrong master key or tampered data")
	}
	return out, nil
}
