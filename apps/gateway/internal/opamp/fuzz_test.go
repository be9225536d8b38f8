package opamp

import (
	"testing"

	"github.com/open-telemetry/opamp-go/protobufs"
	"google.golang.org/protobuf/proto"
)

// FuzzAgentMessage feeds arbitrary AgentToServer bytes through what the server stores from a
// message (agentReport, policyReport): nothing may panic and every stored part stays bounded.
func FuzzAgentMessage(f *testing.F) {
	seed, _ := proto.Marshal(&protobufs.AgentToServer{
		InstanceUid: make([]byte, 16), SequenceNum: 1, Capabilities: 0x3f,
		AgentDescription: &protobufs.AgentDescription{NonIdentifyingAttributes: []*protobufs.KeyValue{stringAttr("host.name", "db01")}},
		Health:           &protobufs.ComponentHealth{Healthy: true, Status: "running"},
		RemoteConfigStatus: &protobufs.RemoteConfigStatus{LastRemoteConfigHash: []byte{1, 2},
			Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED, ErrorMessage: "bad"},
		EffectiveConfig: &protobufs.EffectiveConfig{ConfigMap: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
			PolicyConfigName: {Body: []byte(`{"version":1}`)}}}},
	})
	f.Add(seed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var msg protobufs.AgentToServer
		if proto.Unmarshal(data, &msg) != nil {
			return
		}
		report := agentReport(&msg, sentPolicy{})
		if report.Host != nil {
			for _, field := range []string{report.Host.Hostname, report.Host.OS, report.Host.OSVersion, report.Host.Kernel, report.Host.Arch, report.Host.AgentVersion} {
				if len([]rune(field)) > maxHostFieldRunes {
					t.Fatalf("a host field of %d characters", len([]rune(field)))
				}
			}
		}
		if available, ok := report.Capabilities["available"].([]string); ok && len(available) > maxCapabilities {
			t.Fatalf("%d capabilities", len(available))
		}
		if status := msg.GetRemoteConfigStatus(); status != nil {
			if r := policyReport(status); len([]rune(r.Message)) > maxMessageRunes {
				t.Fatalf("a policy message of %d characters", len([]rune(r.Message)))
			}
		}
	})
}
