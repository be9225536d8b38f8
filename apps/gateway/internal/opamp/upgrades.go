package opamp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// Agent upgrades over OpAMP (docs/agent-protocol.md, "Upgrades"). A server's live attempt
// (agent_upgrades: offered, downloading or installing) is offered to its agent as
// PackagesAvailable with one top-level package, the agent itself, whose file is the release's
// binary for the server's OS and architecture, its SHA-256, and the gateway's signature over the
// release's SHA256SUMS. The agent answers with PackageStatuses, written to the attempt at once
// (they are rare). Offers go out on a WebSocket's first message, whenever
// spindle_agent_upgrade_changed names the server's organisation, and with every plain-HTTP poll.

// UpgradeChangedChannel is NOTIFYed with {"orgId"} when an organisation's attempts go live or
// are cancelled (migration 20261128190000_agent_upgrades).
const UpgradeChangedChannel = "spindle_agent_upgrade_changed"

// agentPackage is the package the agent knows itself by (agent/internal/upgrade.PackageName).
const agentPackage = "spindle-agent"

// rolledBackPrefix starts the message of an upgrade the agent's watchdog rolled back.
const rolledBackPrefix = "rolled back to "

// UpgradeStore is what offering upgrades needs from the database; *store.Store implements it.
type UpgradeStore interface {
	LiveUpgrades(ctx context.Context, orgID string, serverIDs []string) (map[string]store.LiveUpgrade, error)
	RecordUpgradeOffered(ctx context.Context, orgID, upgradeID, offerHash string) error
	RecordUpgradeReport(ctx context.Context, agent store.Agent, report store.UpgradeReport) (string, error)
}

var _ UpgradeStore = (*store.Store)(nil)

// Releases is what the gateway serves (releases.Catalogue).
type Releases interface {
	Release(version string) (releases.Release, bool)
}

// upgrades gathers the servers whose offers must be looked at, like the policy fan-out.
type upgrades struct {
	s       *Server
	mu      sync.Mutex
	pending map[string]struct{}
	wake    chan struct{}
}

func newUpgrades(s *Server) *upgrades {
	return &upgrades{s: s, pending: map[string]struct{}{}, wake: make(chan struct{}, 1)}
}

func (u *upgrades) add(serverIDs ...string) {
	if u.s.settings.Releases == nil {
		return
	}
	u.mu.Lock()
	for _, id := range serverIDs {
		u.pending[id] = struct{}{}
	}
	u.mu.Unlock()
	signal(u.wake)
}

// addOrg looks at every server of the organisation connected here.
func (u *upgrades) addOrg(orgID string) {
	var ids []string
	for _, c := range u.s.registry.of("") {
		if c.agent.OrgID == orgID {
			ids = append(ids, c.agent.ServerID)
		}
	}
	u.add(ids...)
}

func (u *upgrades) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.wake:
		}
		sleep(ctx, u.s.settings.FanoutLinger) // the rest of a reconnect storm or a wave's commit
		u.mu.Lock()
		taken := u.pending
		u.pending = map[string]struct{}{}
		u.mu.Unlock()
		byOrg := map[string][]*agentConnection{}
		for id := range taken {
			for _, c := range u.s.registry.of(id) {
				byOrg[c.agent.OrgID] = append(byOrg[c.agent.OrgID], c)
			}
		}
		for orgID, conns := range byOrg {
			u.offer(ctx, orgID, conns)
		}
	}
}

// offer reads the organisation's live attempts for these connections and sends what each lacks.
func (u *upgrades) offer(ctx context.Context, orgID string, conns []*agentConnection) {
	ids := make([]string, 0, len(conns))
	for _, c := range conns {
		ids = append(ids, c.agent.ServerID)
	}
	dbCtx, cancel := context.WithTimeout(ctx, u.s.settings.DatabaseTimeout)
	defer cancel()
	live, err := u.s.settings.UpgradeStore.LiveUpgrades(dbCtx, orgID, ids)
	if err != nil {
		u.s.settings.Logger.Warn("could not read agent upgrades to offer; they go out at the agents' next connection", "org_id", orgID, "error", err)
		return
	}
	for _, c := range conns {
		attempt, ok := live[c.agent.ServerID]
		if !ok {
			continue
		}
		c.mu.Lock()
		view := c.packagesView()
		c.mu.Unlock()
		offer := c.upgradeOffer(dbCtx, attempt, view)
		if offer == nil {
			continue
		}
		c.sendUpgrade(offer, u.s.settings.DatabaseTimeout)
	}
}

// packagesView is what a connection knows of its agent's packages, taken under its lock.
type packagesView struct {
	accepts                 bool
	running, sent, os, arch string
}

// packagesView is called with c.mu held.
func (c *agentConnection) packagesView() packagesView {
	return packagesView{accepts: c.acceptsPackages, running: c.agentVersion, sent: c.offeredHash, os: c.agentOS, arch: c.agentArch}
}

// upgradeOffer decides whether this connection's agent gets the attempt, records the offer and
// returns the message; nil when there is nothing to send. Called without c.mu held for the
// database's sake; view is the connection's state taken under it.
func (c *agentConnection) upgradeOffer(ctx context.Context, attempt store.LiveUpgrade, view packagesView) *protobufs.PackagesAvailable {
	accepts, running, sent, goos, arch := view.accepts, view.running, view.sent, view.os, view.arch
	if !accepts {
		return nil
	}
	if running == "" {
		running = attempt.AgentVersion
	}
	if goos == "" {
		goos, arch = attempt.OS, attempt.Arch
	}
	if running == attempt.TargetVersion {
		return nil // it runs the version: its report will say installed
	}
	release, ok := c.server.settings.Releases.Release(attempt.TargetVersion)
	var binary releases.File
	if ok {
		binary, ok = release.Binary(goos, arch)
	}
	if !ok || len(release.Signature) == 0 {
		c.failUpgrade(ctx, attempt, fmt.Sprintf("this gateway serves no %s agent for %s/%s: add the release to SPINDLE_AGENT_DIST_DIR (docs/install.md, \"Upgrades\")", attempt.TargetVersion, goos, arch))
		return nil
	}
	sum, err := hex.DecodeString(binary.SHA256)
	if err != nil {
		return nil
	}
	hash := offerHash(attempt.ID, attempt.TargetVersion, sum)
	hexHash := hex.EncodeToString(hash)
	if hexHash == sent {
		return nil
	}
	if attempt.OfferHash != hexHash {
		if err := c.server.settings.UpgradeStore.RecordUpgradeOffered(ctx, c.agent.OrgID, attempt.ID, hexHash); err != nil {
			c.log.Warn("could not record the upgrade offered; offering it at the next connection", "error", err)
			return nil
		}
	}
	c.log.Info("offering an agent upgrade", "version", attempt.TargetVersion, "from", running, "file", binary.Name)
	return &protobufs.PackagesAvailable{
		AllPackagesHash: hash,
		Packages: map[string]*protobufs.PackageAvailable{agentPackage: {
			Type:    protobufs.PackageType_PackageType_TopLevel,
			Version: attempt.TargetVersion,
			Hash:    hash,
			File: &protobufs.DownloadableFile{
				DownloadUrl: c.server.settings.PublicURL + "/download/" + attempt.TargetVersion + "/" + binary.Name,
				ContentHash: sum,
				Signature:   release.Signature,
			},
		}},
	}
}

// offerHash identifies one attempt at one file: the same from every gateway, new for a new attempt.
func offerHash(upgradeID, version string, sum []byte) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "spindle-agent-upgrade\x00%s\x00%s\x00", upgradeID, version)
	h.Write(sum)
	return h.Sum(nil)
}

// failUpgrade records an attempt the gateway cannot offer, so the rollout stops and says why.
func (c *agentConnection) failUpgrade(ctx context.Context, attempt store.LiveUpgrade, message string) {
	hexHash := hex.EncodeToString(offerHash(attempt.ID, attempt.TargetVersion, nil))
	store := c.server.settings.UpgradeStore
	if err := store.RecordUpgradeOffered(ctx, c.agent.OrgID, attempt.ID, hexHash); err == nil {
		_, err = store.RecordUpgradeReport(ctx, c.agent, storeReport(hexHash, "failed", message, ""))
		if err == nil {
			c.log.Warn("cannot offer the agent upgrade", "reason", message)
			return
		}
	}
	c.log.Warn("cannot offer the agent upgrade, and could not record why", "reason", message)
}

func storeReport(hash, state, message, version string) store.UpgradeReport {
	return store.UpgradeReport{OfferHash: hash, State: state, Message: message, AgentVersion: version, ReportedAt: time.Now()}
}

// sendUpgrade pushes the offer over the WebSocket.
func (c *agentConnection) sendUpgrade(offer *protobufs.PackagesAvailable, timeout time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.instanceUID == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := c.conn.Send(ctx, &protobufs.ServerToAgent{InstanceUid: c.instanceUID, PackagesAvailable: offer}); err != nil {
		c.log.Warn("could not offer the upgrade; the agent gets it when it reconnects", "error", err)
		_ = c.conn.Disconnect()
		return
	}
	c.offeredHash = hex.EncodeToString(offer.GetAllPackagesHash())
}

// noteAgent remembers what a message says about the agent's packages. Called with c.mu held.
func (c *agentConnection) noteAgent(msg *protobufs.AgentToServer) {
	if bits := msg.GetCapabilities(); bits != 0 {
		accepts := bits&uint64(protobufs.AgentCapabilities_AgentCapabilities_AcceptsPackages) != 0
		if accepts && !c.acceptsPackages && c.webSocket {
			// opamp-go adds AcceptsPackages after its first message (it needs the agent's package
			// state first): the offer is looked at again now.
			c.server.upgrades.add(c.agent.ServerID)
		}
		c.acceptsPackages = accepts
	}
	if d := msg.GetAgentDescription(); d != nil {
		for _, kv := range append(append([]*protobufs.KeyValue{}, d.GetIdentifyingAttributes()...), d.GetNonIdentifyingAttributes()...) {
			switch kv.GetKey() {
			case "service.version":
				c.agentVersion = kv.GetValue().GetStringValue()
			case "os.type":
				c.agentOS = kv.GetValue().GetStringValue()
			case "host.arch":
				c.agentArch = kv.GetValue().GetStringValue()
			}
		}
	}
}

// recordPackageStatuses writes the agent's report on its own package. Called with c.mu held.
func (c *agentConnection) recordPackageStatuses(ctx context.Context, statuses *protobufs.PackageStatuses) {
	report, ok := upgradeReport(statuses)
	if !ok || c.server.settings.UpgradeStore == nil {
		return
	}
	state, err := c.server.settings.UpgradeStore.RecordUpgradeReport(ctx, c.agent, report)
	switch {
	case err != nil:
		c.log.Warn("could not record the agent's upgrade report", "state", report.State, "error", err)
	case state == "failed" || state == "rolled_back":
		c.log.Warn("agent upgrade did not complete", "state", state, "message", report.Message)
	case state != "":
		c.log.Info("agent upgrade progress", "state", state, "version", report.AgentVersion)
	}
}

// upgradeReport maps PackageStatuses onto agent_upgrades; ok is false without the agent's package.
func upgradeReport(statuses *protobufs.PackageStatuses) (store.UpgradeReport, bool) {
	p := statuses.GetPackages()[agentPackage]
	if p == nil || len(statuses.GetServerProvidedAllPackagesHash()) == 0 {
		return store.UpgradeReport{}, false
	}
	message := truncate(p.GetErrorMessage(), maxMessageRunes)
	var state string
	switch p.GetStatus() {
	case protobufs.PackageStatusEnum_PackageStatusEnum_Downloading:
		state = "downloading"
	case protobufs.PackageStatusEnum_PackageStatusEnum_Installing:
		state = "installing"
	case protobufs.PackageStatusEnum_PackageStatusEnum_Installed:
		state = "installed"
	case protobufs.PackageStatusEnum_PackageStatusEnum_InstallFailed:
		state = "failed"
		if strings.HasPrefix(message, rolledBackPrefix) {
			state = "rolled_back"
		}
		if message == "" {
			message = "the agent refused the upgrade without saying why; see the agent's log"
		}
	default:
		return store.UpgradeReport{}, false
	}
	return storeReport(hex.EncodeToString(statuses.GetServerProvidedAllPackagesHash()), state, message, truncate(p.GetAgentHasVersion(), maxHostFieldRunes)), true
}

// upgradeChanged is the payload of UpgradeChangedChannel.
type upgradeChanged struct {
	OrgID string `json:"orgId"`
}

func (s *Server) onUpgradeChanged(payload string) {
	var change upgradeChanged
	if err := json.Unmarshal([]byte(payload), &change); err != nil || change.OrgID == "" {
		s.settings.Logger.Warn("ignored a malformed upgrade notification", "payload", payload)
		return
	}
	s.upgrades.addOrg(change.OrgID)
}

// pollUpgrade is a plain-HTTP poll's offer, if the agent lacks one. Called with c.mu held (the
// database work of a poll is done under it, as for its policy).
func (c *agentConnection) pollUpgrade(ctx context.Context) *protobufs.PackagesAvailable {
	if c.server.settings.Releases == nil || !c.acceptsPackages {
		return nil
	}
	live, err := c.server.settings.UpgradeStore.LiveUpgrades(ctx, c.agent.OrgID, []string{c.agent.ServerID})
	if err != nil {
		c.log.Warn("could not read the agent's upgrade", "error", err)
		return nil
	}
	attempt, ok := live[c.agent.ServerID]
	if !ok {
		return nil
	}
	offer := c.upgradeOffer(ctx, attempt, c.packagesView())
	if offer != nil {
		c.offeredHash = hex.EncodeToString(offer.GetAllPackagesHash())
	}
	return offer
}
