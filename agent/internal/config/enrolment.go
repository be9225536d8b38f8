package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/spindle-io/spindle/agent/internal/atomicfile"
)

// Enrolment is what enrolment and credential renewal write: the gateway, the agent's identity and
// credential, and the gateway's signing key. By default they live in agent.yaml; with
// enrolment_file set they live in that file instead, so agent.yaml can be a package's conffile
// or a Kubernetes ConfigMap that the agent never rewrites (docs/install.md, "Packages").
type Enrolment struct {
	Gateway             string    `yaml:"gateway"`
	Credential          string    `yaml:"credential"`
	CredentialIssuedAt  time.Time `yaml:"credential_issued_at,omitempty"`
	CredentialExpiresAt time.Time `yaml:"credential_expires_at,omitempty"`
	AgentID             string    `yaml:"agent_id"`
	ServerID            string    `yaml:"server_id"`
	SigningPublicKey    string    `yaml:"signing_public_key,omitempty"`
}

const enrolmentHeader = "# Spindle agent enrolment, written by `spindle-agent enroll` and by credential renewal.\n" +
	"# It holds this agent's credential: keep it mode 0600. Settings belong in agent.yaml.\n"

// Enrolment returns the config's enrolment fields.
func (c Config) Enrolment() Enrolment {
	return Enrolment{Gateway: c.Gateway, Credential: c.Credential, CredentialIssuedAt: c.CredentialIssuedAt,
		CredentialExpiresAt: c.CredentialExpiresAt, AgentID: c.AgentID, ServerID: c.ServerID, SigningPublicKey: c.SigningPublicKey}
}

// setEnrolment overlays the set fields of e.
func (c *Config) setEnrolment(e Enrolment) {
	if e.Gateway != "" {
		c.Gateway = e.Gateway
	}
	if e.Credential != "" {
		c.Credential, c.CredentialIssuedAt, c.CredentialExpiresAt = e.Credential, e.CredentialIssuedAt, e.CredentialExpiresAt
	}
	if e.AgentID != "" {
		c.AgentID = e.AgentID
	}
	if e.ServerID != "" {
		c.ServerID = e.ServerID
	}
	if e.SigningPublicKey != "" {
		c.SigningPublicKey = e.SigningPublicKey
	}
}

// loadEnrolmentFile overlays enrolment_file when it exists (before enrolment it does not).
func (c *Config) loadEnrolmentFile() error {
	if c.EnrolmentFile == "" {
		return nil
	}
	data, err := os.ReadFile(c.EnrolmentFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read enrolment_file: %w", err)
	}
	var e Enrolment
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("enrolment_file %s: parse YAML: %w", c.EnrolmentFile, err)
	}
	c.setEnrolment(e)
	return nil
}

func (c Config) validateEnrolmentPaths() error {
	var errs []error
	for name, p := range map[string]string{"enrolment_file": c.EnrolmentFile, "enrolment_token_file": c.EnrolmentTokenFile, "host_root": c.HostRoot} {
		if p != "" && !filepath.IsAbs(p) {
			errs = append(errs, fmt.Errorf("%s must be an absolute path, got %q", name, p))
		}
	}
	return errors.Join(errs...)
}

// saveEnrolment writes the enrolment fields alone to enrolment_file (0600, atomically).
func saveEnrolment(cfg Config) error {
	body, err := yaml.Marshal(cfg.Enrolment())
	if err != nil {
		return fmt.Errorf("encode enrolment: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(cfg.EnrolmentFile), 0o700); err != nil {
		return fmt.Errorf("create the directory of enrolment_file: %w", err)
	}
	return atomicfile.Write(cfg.EnrolmentFile, append([]byte(enrolmentHeader), body...), 0o600)
}
