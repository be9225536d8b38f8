package upgrade

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
)

// Settings configure the agent's side of upgrades.
type Settings struct {
	Dir              string // config.UpgradeDir()
	ConfigPath       string
	Version          string
	Upgrade          config.UpgradeConfig
	SigningPublicKey string
	AsWindowsService bool
	Logger           *slog.Logger
	// Client downloads; default: 10 minutes per request.
	Client *http.Client
	// Executable is the binary to replace; default: this process's, links resolved.
	Executable string
	// Launch starts the watchdog; default: the restart method's way (launch).
	Launch func(r Restart, previous string, args []string) error
}

// Capability is what the agent tells the gateway about upgrading itself (its OpAMP description).
type Capability struct {
	InstallMethod string
	Remote        bool   // it replaces its own binary when offered a version
	Reason        string // why not, when not
}

// Manager takes the gateway's offers, reports on them, and confirms a new agent's health.
type Manager struct {
	s        Settings
	mu       sync.Mutex
	status   *Status  // the newest report, nil before any offer
	failed   []string // offer hashes that failed: never retried
	busy     bool     // an offer is being downloaded or handed over
	awaiting *State   // this agent is the new one of an upgrade: healthy at the gateway's answer
	reporter func(Status)
}

// NewManager reads what a previous agent or its watchdog left (the outcome of an upgrade that
// restarted this process) and prepares the report of it.
func NewManager(s Settings) (*Manager, error) {
	if s.Client == nil {
		s.Client = &http.Client{Timeout: 10 * time.Minute}
	}
	if s.Executable == "" {
		exe, err := executablePath()
		if err != nil {
			return nil, fmt.Errorf("find the agent's own binary: %w", err)
		}
		s.Executable = exe
	}
	if s.Launch == nil {
		s.Launch = launch
	}
	s.Upgrade = s.Upgrade.WithDefaults()
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the upgrade directory: %w", err)
	}
	m := &Manager{s: s}
	var status Status
	if err := readJSON(filepath.Join(s.Dir, statusFile), &status); err == nil && status.OfferHash != "" {
		m.status = &status
	}
	_ = readJSON(filepath.Join(s.Dir, failedFile), &m.failed)
	st, ok, err := ReadState(StatePath(s.Dir))
	if err != nil {
		s.Logger.Warn("could not read the last upgrade's state; it is not reported", "error", err)
		return m, nil
	}
	if ok {
		m.resume(st)
	}
	return m, nil
}

// resume turns the state an upgrade left into this agent's report.
func (m *Manager) resume(st State) {
	report := func(state StatusState, message string) {
		m.setStatus(Status{OfferHash: st.OfferHash, Offered: st.To, State: state, Version: m.s.Version, Message: message, At: time.Now().UTC()})
	}
	switch {
	case (st.Phase == PhaseRestarting || st.Phase == PhaseStaged) && st.To == m.s.Version:
		copied := st
		m.awaiting = &copied
		report(StatusInstalling, "")
		m.s.Logger.Info("started as the new agent of an upgrade; healthy once the gateway answers", "from", st.From, "to", st.To)
	case (st.Phase == PhaseHealthy || st.Phase == PhaseInstalled) && st.To == m.s.Version:
		report(StatusInstalled, "")
	case st.Phase == PhaseRolledBack && st.From == m.s.Version:
		m.rememberFailed(st.OfferHash)
		report(StatusFailed, RolledBackPrefix+st.From+": "+st.Message)
		m.s.Logger.Warn("the upgrade was rolled back; this agent runs the previous version again", "to", st.To, "reason", st.Message)
	case st.Phase == PhaseFailed:
		m.rememberFailed(st.OfferHash)
		report(StatusFailed, st.Message)
	}
}

// SetReporter sets where status changes go (the OpAMP client's SetPackageStatuses).
func (m *Manager) SetReporter(report func(Status)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reporter = report
}

// Status is the newest report, for the first message of every OpAMP connection.
func (m *Manager) Status() (Status, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.status == nil {
		return Status{}, false
	}
	return *m.status, true
}

// Capability says whether this agent can take an offer, and why not.
func (m *Manager) Capability() Capability {
	method := InstallMethod(m.s.Executable)
	c := Capability{InstallMethod: method}
	switch {
	case !m.s.Upgrade.UpgradesEnabled():
		c.Reason = "upgrades are switched off in agent.yaml (upgrade.enabled: false)"
	case !selfReplacing(method):
		c.Reason = manualHint(method)
	case m.s.SigningPublicKey == "":
		c.Reason = "the agent has no signing key of the gateway to check upgrades with: enrol it again"
	default:
		if _, err := DetectRestart(m.s.Upgrade, m.s.AsWindowsService); err != nil {
			c.Reason = err.Error()
		} else {
			c.Remote = true
		}
	}
	return c
}

// GatewayAnswered is called when the gateway answered this agent (a connection's first answer):
// the new agent of an upgrade is then healthy, the watchdog finishes, and the upgrade is
// reported installed.
func (m *Manager) GatewayAnswered() {
	m.mu.Lock()
	awaiting := m.awaiting
	m.awaiting = nil
	m.mu.Unlock()
	if awaiting == nil {
		return
	}
	path := StatePath(m.s.Dir)
	st, ok, err := ReadState(path)
	if err == nil && ok && st.OfferHash == awaiting.OfferHash && !st.Phase.Finished() {
		st.Phase = PhaseHealthy
		err = WriteState(path, st)
	}
	if err != nil {
		m.s.Logger.Error("could not tell the upgrade watchdog this agent is healthy; it will roll back", "error", err)
		return
	}
	m.s.Logger.Info("upgrade installed: this agent connected and the gateway answered", "from", awaiting.From, "to", awaiting.To)
	m.report(Status{OfferHash: awaiting.OfferHash, Offered: awaiting.To, State: StatusInstalled, Version: m.s.Version, At: time.Now().UTC()})
}

// Offer takes a version the gateway offers; the work runs in the background and reports as it goes.
func (m *Manager) Offer(offer Offer) {
	m.mu.Lock()
	if m.busy || m.awaiting != nil {
		m.mu.Unlock()
		return // one upgrade at a time; the gateway offers again after the outcome
	}
	if slices.Contains(m.failed, offer.Hash) {
		status := m.status
		m.mu.Unlock()
		if status != nil && status.OfferHash == offer.Hash {
			m.report(*status) // the gateway missed the outcome: say it again
		}
		return
	}
	m.busy = true
	m.mu.Unlock()
	go func() {
		defer func() {
			m.mu.Lock()
			m.busy = false
			m.mu.Unlock()
		}()
		m.take(context.Background(), offer)
	}()
}

func (m *Manager) take(ctx context.Context, offer Offer) {
	status := Status{OfferHash: offer.Hash, Offered: offer.Version, Version: m.s.Version}
	fail := func(message string) {
		m.mu.Lock()
		m.rememberFailed(offer.Hash)
		m.mu.Unlock()
		m.s.Logger.Warn("refused the upgrade the gateway offered", "version", offer.Version, "reason", message)
		status.State, status.Message, status.At = StatusFailed, message, time.Now().UTC()
		m.report(status)
	}
	if offer.Version == m.s.Version {
		status.State, status.At = StatusInstalled, time.Now().UTC()
		m.report(status)
		return
	}
	capability := m.Capability()
	if !capability.Remote {
		if m.s.Upgrade.UpgradesEnabled() {
			fail(refusalFor(capability.InstallMethod, capability.Reason, offer.Version))
		} else {
			fail(capability.Reason)
		}
		return
	}
	restart, err := DetectRestart(m.s.Upgrade, m.s.AsWindowsService)
	if err != nil {
		fail(err.Error())
		return
	}
	key, err := ParsePublicKey(m.s.SigningPublicKey)
	if err != nil {
		fail(err.Error())
		return
	}
	m.s.Logger.Info("upgrading the agent", "from", m.s.Version, "to", offer.Version)
	status.State, status.At = StatusDownloading, time.Now().UTC()
	m.report(status)
	staged, err := Fetch(ctx, m.s.Client, key, offer, filepath.Join(m.s.Dir, downloadDir))
	if err != nil {
		fail(err.Error())
		return
	}
	status.State, status.At = StatusInstalling, time.Now().UTC()
	m.report(status)
	previous := filepath.Join(m.s.Dir, previousDir, "spindle-agent"+exeSuffix)
	if err := replaceFile(m.s.Executable, previous); err != nil {
		fail(fmt.Sprintf("could not keep a copy of the running binary: %v", err))
		return
	}
	statePath := StatePath(m.s.Dir)
	st := State{OfferHash: offer.Hash, From: m.s.Version, To: offer.Version, Phase: PhaseStaged, Executable: m.s.Executable,
		Staged: staged, Previous: previous, ConfigPath: m.s.ConfigPath, Restart: restart, HealthTimeout: m.s.Upgrade.HealthTimeout,
		StartedAt: time.Now().UTC()}
	if err := WriteState(statePath, st); err != nil {
		fail(fmt.Sprintf("could not record the upgrade: %v", err))
		return
	}
	if err := m.s.Launch(restart, previous, []string{"upgrade-watch", "--state", statePath}); err != nil {
		st.Phase, st.Message = PhaseFailed, err.Error()
		_ = WriteState(statePath, st)
		fail(err.Error())
		return
	}
	m.s.Logger.Info("handed the upgrade to the watchdog; this agent stops now", "to", offer.Version, "restart", restart.Method)
	m.watchHandover(ctx, statePath, offer.Hash, status)
}

// watchHandover reports a watchdog failure that leaves this agent running (it could not swap or
// stop it). Otherwise this agent is stopped and the next one reports.
func (m *Manager) watchHandover(ctx context.Context, statePath, hash string, status Status) {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		st, ok, err := ReadState(statePath)
		if err != nil || !ok || st.OfferHash != hash {
			continue
		}
		if st.Phase == PhaseFailed {
			m.mu.Lock()
			m.rememberFailed(hash)
			m.mu.Unlock()
			status.State, status.Message, status.At = StatusFailed, st.Message, time.Now().UTC()
			m.report(status)
			return
		}
	}
}

func (m *Manager) report(status Status) {
	m.mu.Lock()
	m.setStatus(status)
	reporter := m.reporter
	m.mu.Unlock()
	if reporter != nil {
		reporter(status)
	}
}

// setStatus records and persists the report; called with m.mu held (or before the manager is shared).
func (m *Manager) setStatus(status Status) {
	m.status = &status
	if err := writeJSON(filepath.Join(m.s.Dir, statusFile), status); err != nil {
		m.s.Logger.Warn("could not save the upgrade status; it is reported again only while this agent runs", "error", err)
	}
}

// rememberFailed keeps the newest failed offers; called with m.mu held.
func (m *Manager) rememberFailed(hash string) {
	if hash == "" || slices.Contains(m.failed, hash) {
		return
	}
	m.failed = append(m.failed, hash)
	if len(m.failed) > maxFailedIDs {
		m.failed = m.failed[len(m.failed)-maxFailedIDs:]
	}
	_ = writeJSON(filepath.Join(m.s.Dir, failedFile), m.failed)
}
