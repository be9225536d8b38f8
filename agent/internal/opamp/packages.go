package opamp

import (
	"context"
	"encoding/hex"
	"errors"
	"io"

	clienttypes "github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/agent/internal/upgrade"
)

// Upgrades arrive as OpAMP PackagesAvailable with one top-level package, the agent itself
// (upgrade.PackageName), and are answered with PackageStatuses (docs/agent-protocol.md,
// "Upgrades"). opamp-go's package syncer is not used: it reports "installed" once the file is
// stored, while an agent upgrade is installed only when the new binary runs and the gateway
// answered it, which the upgrade manager and its watchdog decide.

// Description attributes saying whether this agent replaces itself when offered a version.
const (
	InstallMethodAttribute = "spindle.agent.install_method"
	UpgradeAttribute       = "spindle.agent.upgrade" // "remote", or why not
)

// offerFrom reads the agent's package out of an offer; ok is false when there is none.
func offerFrom(available *protobufs.PackagesAvailable) (upgrade.Offer, bool) {
	pkg := available.GetPackages()[upgrade.PackageName]
	if pkg == nil || pkg.GetFile() == nil {
		return upgrade.Offer{}, false
	}
	return upgrade.Offer{
		Hash:      hex.EncodeToString(available.GetAllPackagesHash()),
		Version:   pkg.GetVersion(),
		URL:       pkg.GetFile().GetDownloadUrl(),
		SHA256:    pkg.GetFile().GetContentHash(),
		Signature: pkg.GetFile().GetSignature(),
	}, true
}

// packageStatuses is the manager's report in OpAMP's words.
func packageStatuses(s upgrade.Status) *protobufs.PackageStatuses {
	hash, _ := hex.DecodeString(s.OfferHash)
	status := protobufs.PackageStatusEnum_PackageStatusEnum_InstallPending
	switch s.State {
	case upgrade.StatusDownloading:
		status = protobufs.PackageStatusEnum_PackageStatusEnum_Downloading
	case upgrade.StatusInstalling:
		status = protobufs.PackageStatusEnum_PackageStatusEnum_Installing
	case upgrade.StatusInstalled:
		status = protobufs.PackageStatusEnum_PackageStatusEnum_Installed
	case upgrade.StatusFailed:
		status = protobufs.PackageStatusEnum_PackageStatusEnum_InstallFailed
	}
	return &protobufs.PackageStatuses{
		ServerProvidedAllPackagesHash: hash,
		Packages: map[string]*protobufs.PackageStatus{upgrade.PackageName: {
			Name: upgrade.PackageName, AgentHasVersion: s.Version, ServerOfferedVersion: s.Offered,
			Status: status, ErrorMessage: s.Message,
		}},
	}
}

// packageState gives opamp-go the report to put in a connection's first message. The other
// methods serve its package syncer, which the agent does not use.
type packageState struct{ upgrades *upgrade.Manager }

var _ clienttypes.PackagesStateProvider = packageState{}

var errNoSyncer = errors.New("the agent installs upgrades through its upgrade manager, not opamp-go's package syncer")

func (p packageState) LastReportedStatuses() (*protobufs.PackageStatuses, error) {
	if status, ok := p.upgrades.Status(); ok {
		return packageStatuses(status), nil
	}
	return nil, nil
}

// SetLastReportedStatuses: the manager saves its own reports.
func (packageState) SetLastReportedStatuses(*protobufs.PackageStatuses) error { return nil }

func (packageState) AllPackagesHash() ([]byte, error)                       { return nil, errNoSyncer }
func (packageState) SetAllPackagesHash([]byte) error                        { return errNoSyncer }
func (packageState) Packages() ([]string, error)                            { return nil, errNoSyncer }
func (packageState) SetPackageState(string, clienttypes.PackageState) error { return errNoSyncer }
func (packageState) CreatePackage(string, protobufs.PackageType) error      { return errNoSyncer }
func (packageState) FileContentHash(string) ([]byte, error)                 { return nil, errNoSyncer }
func (packageState) DeletePackage(string) error                             { return errNoSyncer }
func (packageState) PackageState(string) (clienttypes.PackageState, error) {
	return clienttypes.PackageState{}, errNoSyncer
}
func (packageState) UpdateContent(context.Context, string, io.Reader, []byte, []byte) error {
	return errNoSyncer
}
