package opamp

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/open-telemetry/opamp-go/client"
	clienttypes "github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

// packageStates is the smallest PackagesStateProvider opamp-go accepts for an agent that takes
// packages: it only keeps the statuses the agent last reported.
type packageStates struct {
	mu       sync.Mutex
	statuses *protobufs.PackageStatuses
}

func (p *packageStates) LastReportedStatuses() (*protobufs.PackageStatuses, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.statuses, nil
}
func (p *packageStates) SetLastReportedStatuses(s *protobufs.PackageStatuses) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.statuses = s
	return nil
}
func (*packageStates) AllPackagesHash() ([]byte, error)                       { return nil, nil }
func (*packageStates) SetAllPackagesHash([]byte) error                        { return nil }
func (*packageStates) Packages() ([]string, error)                            { return nil, nil }
func (*packageStates) SetPackageState(string, clienttypes.PackageState) error { return nil }
func (*packageStates) CreatePackage(string, protobufs.PackageType) error      { return nil }
func (*packageStates) FileContentHash(string) ([]byte, error)                 { return nil, nil }
func (*packageStates) DeletePackage(string) error                             { return nil }
func (*packageStates) PackageState(string) (clienttypes.PackageState, error) {
	return clienttypes.PackageState{}, nil
}
func (*packageStates) UpdateContent(context.Context, string, io.Reader, []byte, []byte) error {
	return nil
}

type packageAgent struct {
	client client.OpAMPClient
	offers chan *protobufs.PackagesAvailable
}

// startPackageAgent is opamp-go's client as an agent of version that takes packages (or not).
func (h *harness) startPackageAgent(transport, version string, accepts bool) *packageAgent {
	h.t.Helper()
	return h.startAgentWith(transport, version, "amd64", accepts)
}

func (h *harness) startPackageAgentOn(transport, version, arch string) *packageAgent {
	h.t.Helper()
	return h.startAgentWith(transport, version, arch, true)
}

func (h *harness) startAgentWith(transport, version, arch string, accepts bool) *packageAgent {
	h.t.Helper()
	a := &packageAgent{offers: make(chan *protobufs.PackagesAvailable, 8)}
	serverURL := h.url + Path
	if transport == "websocket" {
		a.client = client.NewWebSocket(nil)
		serverURL = "ws" + strings.TrimPrefix(serverURL, "http")
	} else {
		httpClient := client.NewHTTP(nil)
		httpClient.SetPollingInterval(50 * time.Millisecond)
		a.client = httpClient
	}
	must(h.t, a.client.SetAgentDescription(&protobufs.AgentDescription{
		IdentifyingAttributes:    []*protobufs.KeyValue{stringAttr("service.version", version)},
		NonIdentifyingAttributes: []*protobufs.KeyValue{stringAttr("os.type", "linux"), stringAttr("host.arch", arch)},
	}))
	caps := protobufs.AgentCapabilities_AgentCapabilities_ReportsStatus
	var provider clienttypes.PackagesStateProvider
	var startCaps protobufs.AgentCapabilities
	if accepts { // as the agent does (agent/internal/opamp/client.go): opamp-go v0.23 takes them only at Start
		provider = &packageStates{}
		startCaps = caps | protobufs.AgentCapabilities_AgentCapabilities_AcceptsPackages | protobufs.AgentCapabilities_AgentCapabilities_ReportsPackageStatuses
	}
	must(h.t, a.client.SetCapabilities(&caps))
	err := a.client.Start(context.Background(), clienttypes.StartSettings{
		OpAMPServerURL: serverURL, Header: http.Header{"Authorization": {"Bearer " + h.secret}},
		InstanceUid: clienttypes.InstanceUid(uuid.New()), PackagesStateProvider: provider, Capabilities: startCaps,
		Callbacks: clienttypes.Callbacks{
			OnMessage: func(_ context.Context, msg *clienttypes.MessageData) {
				if msg.PackagesAvailable != nil {
					a.offers <- msg.PackagesAvailable
				}
			},
		},
	})
	must(h.t, err)
	var once sync.Once
	h.t.Cleanup(func() { once.Do(func() { _ = a.client.Stop(context.Background()) }) })
	return a
}

func (a *packageAgent) report(t *testing.T, offer *protobufs.PackagesAvailable, status protobufs.PackageStatusEnum, has, message string) {
	t.Helper()
	must(t, a.client.SetPackageStatuses(&protobufs.PackageStatuses{
		ServerProvidedAllPackagesHash: offer.GetAllPackagesHash(),
		Packages: map[string]*protobufs.PackageStatus{agentPackage: {Name: agentPackage, AgentHasVersion: has,
			ServerOfferedVersion: offer.GetPackages()[agentPackage].GetVersion(), Status: status, ErrorMessage: message}},
	}))
}

// testReleases serves 0.1.0 (top) and 0.1.1 (a sub-directory), linux/amd64 only, signed by key.
func testReleases(t *testing.T, key signing.Key) (*releases.Catalogue, []byte) {
	t.Helper()
	dir := t.TempDir()
	binary := []byte("agent 0.1.1 for linux/amd64")
	for path, content := range map[string][]byte{
		"VERSION": []byte("0.1.0\n"), "spindle-agent-linux-amd64": []byte("agent 0.1.0"),
		"0.1.1/spindle-agent-linux-amd64": binary,
	} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, path), content, 0o644))
	}
	catalogue := releases.New(dir, key)
	must(t, catalogue.Refresh())
	return catalogue, binary
}

func upgradeHarness(t *testing.T) (*harness, ed25519.PublicKey, []byte) {
	_, private, err := ed25519.GenerateKey(rand.Reader)
	must(t, err)
	key := signing.New(private)
	catalogue, binary := testReleases(t, key)
	h := newHarnessWith(t, testCredentialTTL, func(s *Settings) {
		s.Releases, s.PublicURL = catalogue, "https://gateway.example.com:4318"
	})
	return h, private.Public().(ed25519.PublicKey), binary
}

func (h *harness) offerAttempt(version string) string {
	h.t.Helper()
	var id string
	must(h.t, h.db.QueryRow(context.Background(), `
		INSERT INTO agent_upgrades (org_id, server_id, target_version, from_version, state, offered_at)
		VALUES ($1, $2, $3, '0.1.0', 'offered', now()) RETURNING id::text`, h.orgID, h.serverID, version).Scan(&id))
	return id
}

func (h *harness) waitAttempt(id string, want string) (message, offerHash string) {
	h.t.Helper()
	var state string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var hash *string
		if err := h.db.QueryRow(context.Background(), `SELECT state, message, offer_hash FROM agent_upgrades WHERE id = $1`, id).Scan(&state, &message, &hash); err != nil {
			h.t.Fatal(err)
		}
		if state == want {
			return message, deref(hash)
		}
	}
	h.t.Fatalf("attempt %s is %s, want %s", id, state, want)
	return "", ""
}

func expectOffer(t *testing.T, a *packageAgent) *protobufs.PackagesAvailable {
	t.Helper()
	select {
	case offer := <-a.offers:
		return offer
	case <-time.After(60 * time.Second):
		t.Fatal("the agent was never offered the upgrade")
		return nil
	}
}

func TestAnAttemptIsOfferedSignedAndItsReportsRecorded(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			h, public, binary := upgradeHarness(t)
			agent := h.startPackageAgent(transport, "0.1.0", true)
			id := h.offerAttempt("0.1.1")
			offer := expectOffer(t, agent)

			pkg := offer.GetPackages()[agentPackage]
			sum := sha256.Sum256(binary)
			if pkg.GetVersion() != "0.1.1" || pkg.GetType() != protobufs.PackageType_PackageType_TopLevel ||
				pkg.GetFile().GetDownloadUrl() != "https://gateway.example.com:4318/download/0.1.1/spindle-agent-linux-amd64" ||
				hex.EncodeToString(pkg.GetFile().GetContentHash()) != hex.EncodeToString(sum[:]) {
				t.Fatalf("offered %v", pkg)
			}
			sums := "" + hex.EncodeToString(sum[:]) + "  spindle-agent-linux-amd64\n"
			if !ed25519.Verify(public, []byte(sums), pkg.GetFile().GetSignature()) {
				t.Fatal("the offer's signature does not verify over the release's SHA256SUMS")
			}
			_, recorded := h.waitAttempt(id, "offered")
			for deadline := time.Now().Add(60 * time.Second); recorded == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				_, recorded = h.waitAttempt(id, "offered")
			}
			if recorded != hex.EncodeToString(offer.GetAllPackagesHash()) {
				t.Fatalf("offer hash recorded %q, sent %x", recorded, offer.GetAllPackagesHash())
			}

			agent.report(t, offer, protobufs.PackageStatusEnum_PackageStatusEnum_Downloading, "0.1.0", "")
			h.waitAttempt(id, "downloading")
			agent.report(t, offer, protobufs.PackageStatusEnum_PackageStatusEnum_InstallFailed, "0.1.0",
				"rolled back to 0.1.0: 0.1.1 stopped before it reported healthy (exit status 1)")
			if message, _ := h.waitAttempt(id, "rolled_back"); !strings.Contains(message, "exit status 1") {
				t.Fatalf("message %q", message)
			}

			// A new attempt is a new offer, and an agent that comes back on the version is installed.
			second := h.offerAttempt("0.1.1")
			// A plain-HTTP agent is offered its live attempt with every poll: skip the old one's.
			offer2 := expectOffer(t, agent)
			for string(offer2.GetAllPackagesHash()) == string(offer.GetAllPackagesHash()) {
				offer2 = expectOffer(t, agent)
			}
			agent.report(t, offer2, protobufs.PackageStatusEnum_PackageStatusEnum_Installed, "0.1.1", "")
			h.waitAttempt(second, "installed")
		})
	}
}

func TestNoOfferToAnAgentThatCannotTakeIt(t *testing.T) {
	h, _, _ := upgradeHarness(t)
	agent := h.startPackageAgent("websocket", "0.1.0", false)
	h.offerAttempt("0.1.1")
	select {
	case offer := <-agent.offers:
		t.Fatalf("offered %v to an agent without AcceptsPackages", offer)
	case <-time.After(2 * time.Second):
	}
}

func TestAnAttemptForAPlatformTheGatewayDoesNotServeFails(t *testing.T) {
	h, _, _ := upgradeHarness(t)
	_, err := h.db.Exec(context.Background(), `UPDATE servers SET arch = 'arm64' WHERE id = $1`, h.serverID)
	must(t, err)
	agent := h.startPackageAgentOn("websocket", "0.1.0", "arm64")
	id := h.offerAttempt("0.1.1")
	message, _ := h.waitAttempt(id, "failed")
	if !strings.Contains(message, "serves no 0.1.1 agent for linux/arm64") {
		t.Fatalf("message %q", message)
	}
	select {
	case offer := <-agent.offers:
		t.Fatalf("offered %v", offer)
	default:
	}
}
