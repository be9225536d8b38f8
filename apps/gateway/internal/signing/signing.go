// Package signing holds the gateway's Ed25519 signing key: it signs SHA256SUMS (served as
// SHA256SUMS.sig), and install.sh pins its public key, so an installer verifies the sums, and
// through them the agent binary, before running anything (docs/configure.md, "Signing key").
// Go's crypto/ed25519 does the maths; keys are PKCS#8 PEM files, the format of
// `openssl genpkey -algorithm ed25519`.
package signing

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Key is the gateway's signing key: Ed25519, and the ECDSA P-256 key derived from it (p256.go).
type Key struct {
	private ed25519.PrivateKey
	p256    *ecdsa.PrivateKey
}

// New wraps an Ed25519 private key and derives its P-256 companion.
func New(private ed25519.PrivateKey) Key { return Key{private: private, p256: deriveP256(private)} }

// IsZero is true for a Key that holds no key.
func (k Key) IsZero() bool { return k.private == nil }

// Sign returns the raw 64-byte Ed25519 signature of message: what `openssl pkeyutl -verify
// -rawin -sigfile` reads.
func (k Key) Sign(message []byte) []byte { return ed25519.Sign(k.private, message) }

// PublicKeyPEM is the public key as a PEM "PUBLIC KEY" (SubjectPublicKeyInfo) block, the form
// `openssl pkeyutl -pubin -inkey` reads.
func (k Key) PublicKeyPEM() string {
	der, err := x509.MarshalPKIXPublicKey(k.private.Public())
	if err != nil {
		panic(fmt.Sprintf("signing: marshal an Ed25519 public key: %v", err)) // cannot happen for Ed25519
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// Load reads a PKCS#8 PEM Ed25519 private key (an operator's configured key).
func Load(path string) (Key, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Key{}, fmt.Errorf("read the signing key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return Key{}, fmt.Errorf("%s holds no PEM \"PRIVATE KEY\" block: create one with `openssl genpkey -algorithm ed25519 -out %s`", path, path)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return Key{}, fmt.Errorf("%s: %w", path, err)
	}
	private, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return Key{}, fmt.Errorf("%s is a %T key; the gateway signs with Ed25519: create one with `openssl genpkey -algorithm ed25519 -out %s`", path, parsed, path)
	}
	return New(private), nil
}

// LoadOrCreate loads the key at path, or, when there is no file yet, generates one and writes it
// there (mode 0600, directory 0700). created says which happened.
func LoadOrCreate(path string) (key Key, created bool, err error) {
	key, err = Load(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return Key{}, false, fmt.Errorf("generate a signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(private)
	if err != nil {
		return Key{}, false, fmt.Errorf("encode the signing key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Key{}, false, fmt.Errorf("create the directory of the signing key: %w", err)
	}
	// O_EXCL: two gateways starting on one state directory must not overwrite each other's key.
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		key, err = Load(path)
		return key, false, err
	}
	if err != nil {
		return Key{}, false, fmt.Errorf("write the signing key: %w", err)
	}
	if err := pem.Encode(file, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		file.Close()
		return Key{}, false, fmt.Errorf("write the signing key: %w", err)
	}
	if err := file.Close(); err != nil {
		return Key{}, false, fmt.Errorf("write the signing key: %w", err)
	}
	return New(private), true, nil
}

// Derive returns 32 bytes derived from the Ed25519 seed (HKDF-SHA256) under a label of the
// caller's own, for a key of another scheme that must follow this one: every gateway sharing the
// Ed25519 key derives the same bytes, and rotating it rotates them (p256.go does the same).
func (k Key) Derive(label string) []byte {
	out, err := hkdf.Key(sha256.New, k.private.Seed(), nil, label, 32)
	if err != nil {
		panic(fmt.Sprintf("signing: HKDF: %v", err)) // only for an output length HKDF cannot give
	}
	return out
}
