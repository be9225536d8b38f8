// Package upgrade replaces the running agent with a version the gateway offers over OpAMP
// (docs/agent-protocol.md, "Upgrades"; docs/install.md, "Upgrades").
//
// The running agent downloads the offered binary and the release's SHA256SUMS, checks the
// gateway's Ed25519 signature over SHA256SUMS with the key pinned at enrolment and the binary's
// SHA-256 against both the signed sums and the offer, before anything it downloaded can run
// (fetch.go). It keeps a copy of itself (the previous binary) and hands over to a watchdog run from
// that copy (`spindle-agent upgrade-watch`, watchdog.go), outside the agent's own process and, under
// systemd, outside its unit: the watchdog swaps the binary atomically, restarts the agent the way
// it runs (systemd, the Windows service, or detached with install.sh's pid and log files), and
// waits for the new agent to connect and be answered by the gateway. If it is not within the
// bound, or exits first, the watchdog puts the previous binary back and starts it, and that agent
// reports the upgrade as rolled back; the gateway then offers it no more (the rollout pauses).
//
// What each agent reports is the OpAMP PackageStatus of the one package, "spindle-agent"
// (manager.go; internal/opamp maps it onto the protocol).
package upgrade

import "time"

// PackageName is the OpAMP package the gateway offers: the agent itself.
const PackageName = "spindle-agent"

// RolledBackPrefix starts the message of an upgrade the watchdog rolled back, so the gateway can
// tell it from a refusal before the swap (both are InstallFailed in OpAMP).
const RolledBackPrefix = "rolled back to "

// Offer is a version the gateway offers.
type Offer struct {
	// Hash is the offer's AllPackagesHash (hex): one attempt. An agent never retries an offer
	// it failed; a new attempt comes with a new hash.
	Hash    string
	Version string
	// URL is the binary's download address; SHA256SUMS is read from the same directory.
	URL string
	// SHA256 is the binary's hash as the gateway offered it; Signature is the gateway's Ed25519
	// signature over the release's SHA256SUMS.
	SHA256    []byte
	Signature []byte
}

// StatusState is where an offer stands, in OpAMP's words.
type StatusState string

const (
	StatusDownloading StatusState = "downloading"
	StatusInstalling  StatusState = "installing"
	StatusInstalled   StatusState = "installed"
	StatusFailed      StatusState = "failed"
)

// Status is the agent's report on the newest offer (persisted in the upgrade directory, so a
// restarted agent reports it in its first message).
type Status struct {
	OfferHash string      `json:"offerHash"`
	Offered   string      `json:"offered"` // the version offered
	State     StatusState `json:"state"`
	Version   string      `json:"version"` // the version this agent runs
	Message   string      `json:"message,omitempty"`
	At        time.Time   `json:"at"`
}
