package signing

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/binary"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func newKey(t *testing.T, seed byte) Key {
	t.Helper()
	return New(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
}

// Every gateway sharing an Ed25519 key signs with the same P-256 key; another key, another one.
func TestTheP256KeyFollowsTheEd25519Key(t *testing.T) {
	a, b, other := newKey(t, 7), newKey(t, 7), newKey(t, 8)
	if !bytes.Equal(a.P256PublicPoint(), b.P256PublicPoint()) {
		t.Fatal("two gateways with one Ed25519 key derived different P-256 keys")
	}
	if bytes.Equal(a.P256PublicPoint(), other.P256PublicPoint()) {
		t.Fatal("two Ed25519 keys derived one P-256 key")
	}
	if point := a.P256PublicPoint(); len(point) != 65 || point[0] != 4 {
		t.Fatalf("public point %x is not uncompressed SEC 1", point)
	}
}

// The signature is what .NET's ECDsa.VerifyData(data, signature, SHA256) checks: ECDSA over
// SHA-256 of the bytes, r and s as 32 big-endian bytes each (IEEE P1363), under the public key.
func TestP256SignaturesVerifyAsWindowsReadsThem(t *testing.T) {
	key := newKey(t, 9)
	message := []byte("3f2a…  spindle-agent-windows-amd64.exe\n")
	signature := key.SignP256(message)
	if len(signature) != 64 {
		t.Fatalf("signature of %d bytes, want 64 (r||s)", len(signature))
	}
	public, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), key.P256PublicPoint())
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(message)
	r, s := new(big.Int).SetBytes(signature[:32]), new(big.Int).SetBytes(signature[32:])
	if !ecdsa.Verify(public, digest[:], r, s) {
		t.Fatal("the signature does not verify")
	}
	tampered := append([]byte(nil), message...)
	tampered[0] ^= 1
	other := sha256.Sum256(tampered)
	if ecdsa.Verify(public, other[:], r, s) {
		t.Fatal("the signature verifies a changed message")
	}

	// An independent implementation: OpenSSL, with the signature in the DER it reads.
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is not installed")
	}
	dir := t.TempDir()
	der, err := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"pub.pem": []byte(key.P256PublicKeyPEM()), "sig.der": der, "sums": message, "bad": tampered} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	verify := func(file string) error {
		return exec.Command("openssl", "dgst", "-sha256", "-verify", filepath.Join(dir, "pub.pem"),
			"-signature", filepath.Join(dir, "sig.der"), filepath.Join(dir, file)).Run()
	}
	if err := verify("sums"); err != nil {
		t.Fatalf("openssl refuses the signature: %v", err)
	}
	if verify("bad") == nil {
		t.Fatal("openssl accepts the signature for a changed message")
	}
}

// BCRYPT_ECCPUBLIC_BLOB, as CngKey.Import(…, CngKeyBlobFormat.EccPublicBlob) reads it.
func TestP256PublicBlobIsWindowsECCPublicBlob(t *testing.T) {
	point := newKey(t, 10).P256PublicPoint()
	blob, err := P256PublicBlob(point)
	if err != nil {
		t.Fatal(err)
	}
	if len(blob) != 72 || string(blob[:4]) != "ECS1" || binary.LittleEndian.Uint32(blob[4:8]) != 32 ||
		!bytes.Equal(blob[8:], point[1:]) {
		t.Fatalf("blob %x", blob)
	}
	if _, err := P256PublicBlob(point[1:]); err == nil {
		t.Fatal("a point without its 0x04 prefix was accepted")
	}
}
