package signing

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"math/big"
)

// The ECDSA P-256 key beside the Ed25519 one (issue 25, L4): Windows ships no Ed25519, but every
// Windows PowerShell (on .NET Framework 4.6.1 or later) and PowerShell 7 can verify ECDSA P-256
// with SHA-256 (System.Security.Cryptography.ECDsaCng), so SHA256SUMS is signed with both and the
// Windows one-liner checks this signature before it runs anything.
//
// The P-256 key is derived from the Ed25519 key's seed (HKDF-SHA256, a label of its own), so
// every gateway that shares the Ed25519 key (docs/configure.md, "Signing key") signs with the same
// P-256 key too, with nothing new to configure, back up or rotate: rotating the Ed25519 key
// rotates both.

const p256Label = "spindle gateway SHA256SUMS signing key, ECDSA P-256, v1"

// deriveP256 turns the Ed25519 seed into a P-256 private key: HKDF output taken as a scalar,
// counter-retried in the (2^-32) case it is not in [1, n-1].
func deriveP256(private ed25519.PrivateKey) *ecdsa.PrivateKey {
	n := elliptic.P256().Params().N
	for counter := byte(0); ; counter++ {
		raw, err := hkdf.Key(sha256.New, private.Seed(), []byte{counter}, p256Label, 32)
		if err != nil {
			panic(fmt.Sprintf("signing: HKDF: %v", err)) // only for an output length HKDF cannot give
		}
		scalar := new(big.Int).SetBytes(raw)
		if scalar.Sign() == 0 || scalar.Cmp(n) >= 0 {
			continue
		}
		key, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
		if err != nil {
			continue
		}
		return key
	}
}

// SignP256 returns the ECDSA P-256 signature over SHA-256(message) in IEEE P1363 form: r and s,
// 32 bytes each, big-endian, what .NET's ECDsa.VerifyData reads (not ASN.1 DER).
func (k Key) SignP256(message []byte) []byte {
	digest := sha256.Sum256(message)
	r, s, err := ecdsa.Sign(rand.Reader, k.p256, digest[:])
	if err != nil {
		panic(fmt.Sprintf("signing: ECDSA P-256: %v", err)) // the key is valid and rand.Reader does not fail
	}
	out := make([]byte, 64)
	r.FillBytes(out[:32])
	s.FillBytes(out[32:])
	return out
}

// P256PublicPoint is the public key as an uncompressed SEC 1 point (0x04 || X || Y, 65 bytes).
func (k Key) P256PublicPoint() []byte {
	point, err := k.p256.PublicKey.Bytes()
	if err != nil {
		panic(fmt.Sprintf("signing: encode the P-256 public key: %v", err))
	}
	return point
}

// P256PublicBlob is the public key as Windows' BCRYPT_ECCPUBLIC_BLOB (magic "ECS1", key length
// 32, X, Y), what CngKey.Import(…, CngKeyBlobFormat.EccPublicBlob) takes.
func P256PublicBlob(point []byte) ([]byte, error) {
	if len(point) != 65 || point[0] != 4 {
		return nil, fmt.Errorf("signing: %d bytes are not an uncompressed P-256 point", len(point))
	}
	blob := make([]byte, 8, 72)
	binary.LittleEndian.PutUint32(blob[0:4], 0x31534345) // BCRYPT_ECDSA_PUBLIC_P256_MAGIC, "ECS1"
	binary.LittleEndian.PutUint32(blob[4:8], 32)
	return append(blob, point[1:]...), nil
}

// P256PublicKeyPEM is the public key as a PEM "PUBLIC KEY" block, for checking by hand with
// `openssl dgst -sha256 -verify` (after turning the signature into DER).
func (k Key) P256PublicKeyPEM() string {
	der, err := x509.MarshalPKIXPublicKey(&k.p256.PublicKey)
	if err != nil {
		panic(fmt.Sprintf("signing: marshal the P-256 public key: %v", err))
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}
