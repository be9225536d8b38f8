package pkgrepo

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

func keyFrom(seed byte) signing.Key {
	return signing.New(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
}

// Gateways sharing the Ed25519 key publish one repository key (operators pin it once); another
// Ed25519 key gives another repository key.
func TestTheRepositoryKeyFollowsTheGatewaysKey(t *testing.T) {
	a, err := NewSigner(keyFrom(1))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSigner(keyFrom(1))
	other, _ := NewSigner(keyFrom(2))
	if !bytes.Equal(a.PublicKey(), b.PublicKey()) || a.Fingerprint() != b.Fingerprint() {
		t.Fatal("two gateways with one Ed25519 key derived different OpenPGP keys")
	}
	if a.Fingerprint() == other.Fingerprint() {
		t.Fatal("two Ed25519 keys derived the same OpenPGP key")
	}
	// What it signs verifies against the key it publishes, and only that key.
	sig, err := a.Detached([]byte("Suite: stable\n"))
	if err != nil {
		t.Fatal(err)
	}
	ring, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(a.ArmoredPublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openpgp.CheckArmoredDetachedSignature(ring, bytes.NewReader([]byte("Suite: stable\n")), bytes.NewReader(sig), nil); err != nil {
		t.Fatalf("the detached signature does not verify: %v", err)
	}
	if _, err := openpgp.CheckArmoredDetachedSignature(ring, bytes.NewReader([]byte("Suite: other\n")), bytes.NewReader(sig), nil); err == nil {
		t.Fatal("a signature verified over other text")
	}
}
