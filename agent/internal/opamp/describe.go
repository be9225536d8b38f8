package opamp

import (
	"crypto/sha1" //nolint:gosec // UUIDv5 is defined with SHA-1; this is an identifier, not a secret
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"
	clienttypes "github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"
)

// spindleAgentNamespace turns an agent id that is not a UUID into a stable UUIDv5.
var spindleAgentNamespace = uuid.NewHash(sha1.New(), uuid.NameSpaceURL, []byte("https://spindle.dev/agent"), 5)

// InstanceUID is the OpAMP instance uid: the agent id's own 16 bytes (the gateway issues UUIDs),
// so the gateway's logs and the agent's identity agree across restarts.
func InstanceUID(agentID string) clienttypes.InstanceUid {
	if id, err := uuid.Parse(agentID); err == nil {
		return clienttypes.InstanceUid(id)
	}
	return clienttypes.InstanceUid(uuid.NewSHA1(spindleAgentNamespace, []byte(agentID)))
}

// description is what the gateway records on the server row (the same attributes as the OTLP
// resource, docs/agent-protocol.md).
func description(s Settings) *protobufs.AgentDescription {
	str := func(k, v string) *protobufs.KeyValue {
		return &protobufs.KeyValue{Key: k, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_StringValue{StringValue: v}}}
	}
	available := make([]*protobufs.AnyValue, 0, len(s.Capabilities))
	for _, c := range s.Capabilities {
		available = append(available, &protobufs.AnyValue{Value: &protobufs.AnyValue_StringValue{StringValue: c}})
	}
	d := &protobufs.AgentDescription{
		IdentifyingAttributes: []*protobufs.KeyValue{
			str("service.name", "spindle-agent"), str("service.version", s.Version), str("service.instance.id", s.AgentID),
		},
		NonIdentifyingAttributes: []*protobufs.KeyValue{
			str("host.name", s.Host.Hostname), str("os.type", s.Host.OS), str("os.description", s.Host.OSVersion),
			str("host.arch", s.Host.Arch), str("spindle.os.kernel", s.Host.Kernel),
			{Key: CapabilitiesAttribute, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_ArrayValue{ArrayValue: &protobufs.ArrayValue{Values: available}}}},
		},
	}
	if s.Upgrades != nil {
		capability := s.Upgrades.Capability()
		upgrades := "remote"
		if !capability.Remote {
			upgrades = capability.Reason
		}
		d.NonIdentifyingAttributes = append(d.NonIdentifyingAttributes, str(InstallMethodAttribute, capability.InstallMethod), str(UpgradeAttribute, upgrades))
	}
	return d
}

// endpoints turns the gateway's base URL into the WebSocket and plain-HTTP OpAMP URLs.
func endpoints(gateway string) (webSocket, plain string, err error) {
	u, err := url.Parse(strings.TrimRight(gateway, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("gateway %q is not an http(s) URL", gateway)
	}
	u.Path = strings.TrimRight(u.Path, "/") + Path
	plain = u.String()
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	return u.String(), plain, nil
}
