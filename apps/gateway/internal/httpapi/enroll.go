package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

const (
	enrollBodyBytes = 64 << 10
	maxFieldRunes   = 255
	enrollTimeout   = 10 * time.Second
)

// enrollRequest is the body of POST /v1/enroll. Unknown fields are accepted so newer agents
// can send more.
type enrollRequest struct {
	Token        string `json:"token"`
	MachineID    string `json:"machineId"`
	Hostname     string `json:"hostname"`
	OS           string `json:"os"`
	OSVersion    string `json:"osVersion"`
	Kernel       string `json:"kernel"`
	Arch         string `json:"arch"`
	AgentVersion string `json:"agentVersion"`
}

type enrollResponse struct {
	AgentID    string    `json:"agentId"`
	ServerID   string    `json:"serverId"`
	OrgID      string    `json:"orgId"`
	Credential string    `json:"credential"`
	BatchHWM   int64     `json:"batchHwm"`
	ExpiresAt  time.Time `json:"expiresAt"` // when the credential stops working unless renewed
	// SigningPublicKey is the gateway's Ed25519 public key (PEM): the agent checks the signature
	// over an upgrade's SHA256SUMS with it before anything it downloaded runs.
	SigningPublicKey string `json:"signingPublicKey"`
}

// validate reports the first problem in words an operator can act on.
func (e enrollRequest) validate() error {
	fields := []struct {
		name, value string
		required    bool
	}{
		{"token", e.Token, true}, {"machineId", e.MachineID, true}, {"hostname", e.Hostname, true}, {"os", e.OS, true},
		{"osVersion", e.OSVersion, false}, {"kernel", e.Kernel, false}, {"arch", e.Arch, false}, {"agentVersion", e.AgentVersion, false},
	}
	for _, f := range fields {
		if f.required && strings.TrimSpace(f.value) == "" {
			return fmt.Errorf("the field %q is missing", f.name)
		}
		if utf8.RuneCountInString(f.value) > maxFieldRunes {
			return fmt.Errorf("the field %q is longer than %d characters", f.name, maxFieldRunes)
		}
	}
	if e.OS != "linux" && e.OS != "windows" {
		return fmt.Errorf("the field \"os\" is %q; expected \"linux\" or \"windows\"", e.OS)
	}
	return nil
}

// handleEnroll is POST /v1/enroll: an enrolment token buys an agent credential.
func (s *server) handleEnroll(w http.ResponseWriter, r *http.Request) {
	if mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, reasonUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	body, err := s.readBodyFirst(w, r, enrollBodyBytes)
	if err != nil {
		writeBodyError(w, err)
		return
	}
	var req enrollRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, reasonMalformed, "the enrolment request is not valid JSON: "+err.Error())
		return
	}
	if err := req.validate(); err != nil {
		writeError(w, http.StatusBadRequest, reasonMalformed, "the enrolment request is incomplete: "+err.Error())
		return
	}
	if !credential.LooksLike(req.Token, credential.EnrollmentPrefix) {
		writeError(w, http.StatusUnauthorized, reasonInvalidToken,
			"this is not an enrolment token (they start with spe_); copy the install command again from the console (Servers → Add server)")
		return
	}

	// Enrolment has its own admission pool: a burst of installs cannot take the slots exports need.
	release, ok := s.enrolls.acquire(r.Context())
	if !ok {
		writeOverloaded(w)
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), enrollTimeout)
	defer cancel()
	// A re-enrolling agent proves it is the machine by its current credential (Authorization).
	var current []byte
	if secret := bearerCredential(r); secret != "" {
		current = credential.Hash(secret)
	}
	enrolled, err := s.store.Enroll(ctx, store.Enrollment{
		TokenHash: credential.Hash(req.Token), MachineID: req.MachineID, Hostname: req.Hostname, OS: req.OS,
		OSVersion: req.OSVersion, Kernel: req.Kernel, Arch: req.Arch, AgentVersion: req.AgentVersion,
		CurrentCredentialHash: current,
	})
	if err != nil {
		s.writeEnrollError(w, err)
		return
	}
	s.log.Info("agent enrolled", "org_id", enrolled.OrgID, "server_id", enrolled.ServerID, "agent_id", enrolled.AgentID,
		"hostname", req.Hostname, "reenrolled", enrolled.Reenrolled)
	writeJSON(w, http.StatusOK, enrollResponse{
		AgentID: enrolled.AgentID, ServerID: enrolled.ServerID, OrgID: enrolled.OrgID,
		Credential: enrolled.Credential, BatchHWM: enrolled.BatchHWM, ExpiresAt: enrolled.ExpiresAt,
		SigningPublicKey: s.signingKey.PublicKeyPEM(),
	})
}

func (s *server) writeEnrollError(w http.ResponseWriter, err error) {
	const again = "; create a new one in the console (Servers → Add server) and run the install command again"
	switch {
	case errors.Is(err, store.ErrTokenUnknown):
		writeError(w, http.StatusUnauthorized, reasonInvalidToken, "the enrolment token is unknown"+again)
	case errors.Is(err, store.ErrTokenExpired):
		writeError(w, http.StatusUnauthorized, reasonInvalidToken, "the enrolment token has expired"+again)
	case errors.Is(err, store.ErrTokenRevoked):
		writeError(w, http.StatusUnauthorized, reasonInvalidToken, "the enrolment token was revoked"+again)
	case errors.Is(err, store.ErrServerRevoked):
		writeError(w, http.StatusForbidden, reasonServerRevoked,
			"this machine's server was revoked in the console and stays revoked; an admin can remove the server or "+
				"choose \"Allow re-enrolment\" on its page, then run the install command again")
	case errors.Is(err, store.ErrIdentityTaken):
		writeError(w, http.StatusConflict, reasonIdentityTaken,
			"this machine is already enrolled; a token alone cannot take over its identity. Re-enrol from the machine "+
				"with its current credential, or have an admin choose \"Allow re-enrolment\" on the server's page in the console")
	case store.IsUnavailable(err):
		s.log.Warn("database unavailable", "path", "/v1/enroll", "error", err)
		writeDatabaseUnavailable(w)
	default:
		s.log.Error("enrolment failed", "error", err)
		writeInternal(w)
	}
}
