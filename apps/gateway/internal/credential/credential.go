// Package credential makes and recognises the two bearer secrets of docs/agent-protocol.md:
// enrolment tokens (spe_…, created by the console) and agent credentials (spa_…, created here).
// Only the SHA-256 of the whole secret string, prefix included, is ever stored.
package credential

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
)

const (
	AgentPrefix      = "spa_"
	EnrollmentPrefix = "spe_"
	// RelayPrefix marks a relay credential: an OpenTelemetry Collector's own, configured on the
	// gateway (SPINDLE_RELAY_CREDENTIALS); it admits relayed exports, never one agent's data.
	RelayPrefix = "spr_"

	secretBytes = 32
)

// NewAgent returns a fresh agent credential and the hash to store for it.
func NewAgent() (secret string, hash []byte, err error) {
	random := make([]byte, secretBytes)
	if _, err := rand.Read(random); err != nil {
		return "", nil, fmt.Errorf("read random bytes for an agent credential: %w", err)
	}
	secret = AgentPrefix + base64.RawURLEncoding.EncodeToString(random)
	return secret, Hash(secret), nil
}

// Hash is the stored form of a secret.
func Hash(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// LooksLike reports whether a secret has the given prefix and a plausible body, so malformed
// input is refused without a database round trip.
func LooksLike(secret, prefix string) bool {
	body, ok := strings.CutPrefix(secret, prefix)
	return ok && len(body) >= 16 && len(body) <= 128 && !strings.ContainsAny(body, " \t\r\n")
}
