// Package pkgrepo builds the agent's package repositories (docs/install.md, "From the gateway's
// package repository"): the .deb packages as a signed apt repository (Apt) and the .rpm packages
// as a signed yum/dnf repository (Yum), from the releases the gateway serves (internal/releases),
// signed with an OpenPGP key derived from the gateway's Ed25519 key. Each gives the files a
// client fetches to add it (ClientFiles) and its metadata and packages (Index), which
// internal/httpapi serves with one handler.
package pkgrepo

import (
	"bytes"
	"crypto"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

// The OpenPGP key is derived from the Ed25519 key's seed, so operators keep one key: every
// gateway sharing it (docs/configure.md, "Signing key") signs the repository with the same
// OpenPGP key, and rotating it rotates this one. The key is a v4 EdDSA (Ed25519, "legacy" OID)
// key, what gpgv in Debian 11+ and RHEL 8+'s rpm verify; its creation time is fixed, as the
// fingerprint depends on it.
const openPGPLabel = "spindle gateway package repository signing key, OpenPGP EdDSA, v1"

var keyCreated = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Signer holds the repository's OpenPGP key.
type Signer struct {
	entity  *openpgp.Entity
	public  []byte // binary public key, what apt's signed-by and /usr/share/keyrings take
	armored []byte
}

// NewSigner derives the OpenPGP key from the gateway's signing key. Generation reads its
// randomness from a stream seeded by the derived bytes, so the whole key (and its fingerprint)
// is the same on every gateway with that Ed25519 key.
func NewSigner(key signing.Key) (*Signer, error) {
	seed := [32]byte(key.Derive(openPGPLabel))
	noSalt := false
	config := &packet.Config{
		Rand:                                  rand.NewChaCha8(seed),
		Time:                                  func() time.Time { return keyCreated },
		Algorithm:                             packet.PubKeyAlgoEdDSA,
		Curve:                                 packet.Curve25519,
		DefaultHash:                           crypto.SHA256,
		NonDeterministicSignaturesViaNotation: &noSalt,
	}
	entity, err := openpgp.NewEntity("Spindle gateway", "agent package repository", "", config)
	if err != nil {
		return nil, fmt.Errorf("derive the repository's OpenPGP key: %w", err)
	}
	var public bytes.Buffer
	if err := entity.Serialize(&public); err != nil {
		return nil, fmt.Errorf("serialise the repository's OpenPGP key: %w", err)
	}
	var armored bytes.Buffer
	w, err := armor.Encode(&armored, openpgp.PublicKeyType, nil)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(public.Bytes()); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	armored.WriteByte('\n')
	return &Signer{entity: entity, public: public.Bytes(), armored: armored.Bytes()}, nil
}

// Fingerprint is the key's fingerprint in upper-case hex, what `gpg --show-keys` prints.
func (s *Signer) Fingerprint() string { return fmt.Sprintf("%X", s.entity.PrimaryKey.Fingerprint) }

// PublicKey is the binary public key (a keyring apt's signed-by reads).
func (s *Signer) PublicKey() []byte { return s.public }

// ArmoredPublicKey is the ASCII-armoured public key (what dnf's gpgkey and rpm --import take).
func (s *Signer) ArmoredPublicKey() []byte { return s.armored }

func (s *Signer) config() *packet.Config {
	noSalt := false
	return &packet.Config{DefaultHash: crypto.SHA256, NonDeterministicSignaturesViaNotation: &noSalt}
}

// Detached is an armoured detached signature over data (Release.gpg).
func (s *Signer) Detached(data []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&out, s.entity, bytes.NewReader(data), s.config()); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// ClearSigned is data in a cleartext signature (InRelease).
func (s *Signer) ClearSigned(data []byte) ([]byte, error) {
	var out bytes.Buffer
	w, err := clearsignEncode(&out, s.entity.PrivateKey, s.config())
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
