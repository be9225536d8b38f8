package credential

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

func TestNewAgentIsRandomPrefixedAndHashed(t *testing.T) {
	first, firstHash, err := NewAgent()
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := NewAgent()
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Fatal("two credentials are equal")
	}
	if !LooksLike(first, AgentPrefix) || len(first) != len(AgentPrefix)+43 {
		t.Fatalf("credential %q is not spa_ + 43 base64url characters", first)
	}
	want := sha256.Sum256([]byte(first))
	if !bytes.Equal(firstHash, want[:]) {
		t.Fatal("hash is not the SHA-256 of the whole credential string")
	}
}

func TestLooksLike(t *testing.T) {
	for secret, want := range map[string]bool{
		"spe_abcdefghijklmnopqrstuvwxyz":  true,
		"spa_abcdefghijklmnopqrstuvwxyz":  false,
		"spe_short":                       false,
		"spe_abcdefghijklmnop qrstuvwxyz": false,
		"":                                false,
	} {
		if got := LooksLike(secret, EnrollmentPrefix); got != want {
			t.Errorf("LooksLike(%q) = %v, want %v", secret, got, want)
		}
	}
}
