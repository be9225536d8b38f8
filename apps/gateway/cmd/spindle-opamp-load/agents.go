package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/open-telemetry/opamp-go/client"
	clienttypes "github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/apps/gateway/internal/opamp"
)

// agents are opamp-go WebSocket clients behaving as spindle-agent does over OpAMP: they report
// their description and health, apply every RemoteConfig (APPLIED with its hash, effective
// config updated) and heartbeat at the agent's interval.
type agents struct {
	o       options
	mu      sync.Mutex
	clients []client.OpAMPClient
	live    atomic.Int64 // clients that connected at least once
	redials atomic.Int64 // connections after a client's first: the gateway dropped or refused one
}

func newAgents(o options) *agents { return &agents{o: o} }

func (a *agents) connected() int { return int(a.live.Load()) }

// connect starts one client per server at connectRate per second and waits until all are up.
func (a *agents) connect(ctx context.Context, servers []enrolledServer) error {
	tick := time.NewTicker(time.Second / time.Duration(max(1, a.o.connectRate)))
	defer tick.Stop()
	url := "ws" + strings.TrimPrefix(a.o.gateway, "http") + opamp.Path
	for i, s := range servers {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		c, err := a.start(url, s)
		if err != nil {
			return err
		}
		a.mu.Lock()
		a.clients = append(a.clients, c)
		a.mu.Unlock()
		if (i+1)%1000 == 0 {
			logf("%d clients started, %d connected", i+1, a.connected())
		}
	}
	for a.connected() < len(servers) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func (a *agents) start(url string, s enrolledServer) (client.OpAMPClient, error) {
	c := client.NewWebSocket(nil)
	var effective atomic.Pointer[[]byte]
	var once atomic.Bool
	caps := protobufs.AgentCapabilities_AgentCapabilities_ReportsStatus |
		protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsRemoteConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsEffectiveConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsHealth |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsHeartbeat
	attr := func(k, v string) *protobufs.KeyValue {
		return &protobufs.KeyValue{Key: k, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_StringValue{StringValue: v}}}
	}
	if err := c.SetAgentDescription(&protobufs.AgentDescription{
		IdentifyingAttributes:    []*protobufs.KeyValue{attr("service.name", "spindle-agent"), attr("service.version", "load")},
		NonIdentifyingAttributes: []*protobufs.KeyValue{attr("host.name", "load-"+s.serverID[:8]), attr("os.type", "linux"), attr("host.arch", "amd64")},
	}); err != nil {
		return nil, err
	}
	if err := c.SetHealth(&protobufs.ComponentHealth{Healthy: true, Status: "running", StartTimeUnixNano: uint64(time.Now().UnixNano())}); err != nil {
		return nil, err
	}
	if err := c.SetCapabilities(&caps); err != nil {
		return nil, err
	}
	heartbeat := a.o.heartbeat
	err := c.Start(context.Background(), clienttypes.StartSettings{
		OpAMPServerURL:    url,
		Header:            http.Header{"Authorization": {"Bearer " + s.secret}},
		InstanceUid:       clienttypes.InstanceUid(uuid.New()),
		HeartbeatInterval: &heartbeat,
		Callbacks: clienttypes.Callbacks{
			OnConnect: func(context.Context) {
				if once.CompareAndSwap(false, true) {
					a.live.Add(1)
				} else {
					a.redials.Add(1)
				}
			},
			OnConnectFailed: func(context.Context, error) {},
			OnMessage: func(ctx context.Context, msg *clienttypes.MessageData) {
				if msg.RemoteConfig == nil {
					return
				}
				body := msg.RemoteConfig.GetConfig().GetConfigMap()[opamp.PolicyConfigName].GetBody()
				effective.Store(&body)
				_ = c.UpdateEffectiveConfig(ctx)
				_ = c.SetRemoteConfigStatus(&protobufs.RemoteConfigStatus{LastRemoteConfigHash: msg.RemoteConfig.GetConfigHash(),
					Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED})
			},
			GetEffectiveConfig: func(context.Context) (*protobufs.EffectiveConfig, error) {
				var body []byte
				if p := effective.Load(); p != nil {
					body = *p
				}
				return &protobufs.EffectiveConfig{ConfigMap: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
					opamp.PolicyConfigName: {Body: body, ContentType: "application/json"}}}}, nil
			},
		},
	})
	return c, err
}

func (a *agents) stopAll() {
	a.mu.Lock()
	clients := a.clients
	a.clients = nil
	a.mu.Unlock()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 256)
	for _, c := range clients {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = c.Stop(stopCtx)
		}()
	}
	wg.Wait()
}
