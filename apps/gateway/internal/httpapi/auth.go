package httpapi

import (
	"net/http"
	"strings"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
)

// bearerCredential returns the agent credential of the Authorization header, or "" when the
// header is missing or does not hold an spa_ credential.
func bearerCredential(r *http.Request) string {
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	secret = strings.TrimSpace(secret)
	if !credential.LooksLike(secret, credential.AgentPrefix) {
		return ""
	}
	return secret
}
