package opamp

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/open-telemetry/opamp-go/client"
	clienttypes "github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/agent/internal/upgrade"
)

// Transport is how the client currently talks to the gateway.
type Transport string

const (
	TransportWebSocket Transport = "websocket"
	TransportHTTP      Transport = "http"
)

// Client keeps an OpAMP connection to the gateway until Stop.
type Client struct {
	settings Settings
	wsURL    string
	httpURL  string
	uid      clienttypes.InstanceUid
	started  time.Time

	mu        sync.Mutex
	transport Transport
	connected bool
	lastError string
	status    *protobufs.RemoteConfigStatus // last reported, handed to the next client on a switch
	current   client.OpAMPClient            // the client running now: upgrade reports go through it

	cancel context.CancelFunc
	done   chan struct{}
}

// Status is the connection's part of status.json.
type Status struct {
	Transport Transport `json:"transport"`
	Connected bool      `json:"connected"`
	LastError string    `json:"lastError,omitempty"`
}

// New prepares a client; Start connects.
func New(settings Settings) (*Client, error) {
	if err := settings.validate(); err != nil {
		return nil, err
	}
	wsURL, httpURL, err := endpoints(settings.Gateway)
	if err != nil {
		return nil, err
	}
	c := &Client{settings: settings, wsURL: wsURL, httpURL: httpURL, uid: InstanceUID(settings.AgentID),
		started: time.Now(), transport: TransportWebSocket}
	if settings.Upgrades != nil {
		settings.Upgrades.SetReporter(c.reportPackages)
	}
	// A restarted agent tells the gateway at once which policy it runs, so an unchanged policy
	// is not sent again.
	if lkg, ok := settings.Policy.LastKnownGood(); ok {
		if hash, err := hex.DecodeString(lkg.Hash); err == nil {
			c.status = &protobufs.RemoteConfigStatus{LastRemoteConfigHash: hash, Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED}
		}
	}
	return c, nil
}

// Start connects in the background; it never blocks on the network.
func (c *Client) Start(ctx context.Context) {
	ctx, c.cancel = context.WithCancel(ctx)
	c.done = make(chan struct{})
	go func() { defer close(c.done); c.supervise(ctx) }()
}

// Stop closes the connection and waits for the client to finish.
func (c *Client) Stop() {
	if c.cancel == nil {
		return
	}
	c.cancel()
	<-c.done
	c.setConnected(false, "")
}

// Status reports the connection for status.json.
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Status{Transport: c.transport, Connected: c.connected, LastError: c.lastError}
}

// supervise runs WebSocket, falls back to HTTP polling after repeated refused upgrades, and
// returns to WebSocket after RetryWebSocketAfter.
func (c *Client) supervise(ctx context.Context) {
	for ctx.Err() == nil {
		fallback := make(chan struct{})
		ws := c.run(ctx, TransportWebSocket, fallback)
		select {
		case <-ctx.Done():
		case <-fallback:
			c.settings.Logger.Warn("the gateway refused the OpAMP WebSocket upgrade repeatedly; polling over HTTP instead",
				"poll_interval", c.settings.PollInterval.String(), "retry_websocket_in", c.settings.RetryWebSocketAfter.String())
		}
		c.stopClient(ws)
		if ctx.Err() != nil {
			return
		}
		polling := c.run(ctx, TransportHTTP, nil)
		select {
		case <-ctx.Done():
		case <-time.After(c.settings.RetryWebSocketAfter):
		}
		c.stopClient(polling)
	}
}

func (c *Client) stopClient(oc client.OpAMPClient) {
	if oc == nil {
		return
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Called once per client: opamp-go's Stop blocks forever on a second call.
	if err := oc.Stop(stopCtx); err != nil {
		c.settings.Logger.Debug("OpAMP client stop", "error", err)
	}
}

// run starts one opamp-go client; it returns nil (and retries on the next loop) only if the
// client could not start, which is a programming error logged loudly.
func (c *Client) run(ctx context.Context, transport Transport, fallback chan struct{}) client.OpAMPClient {
	c.mu.Lock()
	c.transport, c.connected = transport, false
	status := c.status
	c.mu.Unlock()

	var oc client.OpAMPClient
	serverURL := c.wsURL
	logger := &logAdapter{log: c.settings.Logger}
	if transport == TransportHTTP {
		oc, serverURL = client.NewHTTP(logger), c.httpURL
	} else {
		oc = client.NewWebSocket(logger)
	}
	refused := 0
	var once sync.Once
	callbacks := clienttypes.Callbacks{
		OnConnect: func(context.Context) {
			refused = 0
			c.setConnected(true, "")
			c.settings.Logger.Info("connected to the gateway over OpAMP", "transport", transport)
		},
		OnConnectFailed: func(_ context.Context, err error) {
			c.setConnected(false, err.Error())
			// opamp-go v0.23 calls OnConnectFailed twice for each refused attempt.
			if errors.Is(err, websocket.ErrBadHandshake) && fallback != nil {
				if refused++; refused >= 2*c.settings.FallbackAfter {
					once.Do(func() { close(fallback) })
				}
			}
		},
		OnMessage: func(ctx context.Context, msg *clienttypes.MessageData) {
			if c.settings.Upgrades != nil {
				// The gateway answered what this agent reported: the new agent of an upgrade is healthy.
				c.settings.Upgrades.GatewayAnswered()
				if msg.PackagesAvailable != nil {
					if offer, ok := offerFrom(msg.PackagesAvailable); ok {
						c.settings.Upgrades.Offer(offer)
					}
				}
			}
			if msg.RemoteConfig != nil {
				c.applyRemoteConfig(ctx, oc, msg.RemoteConfig)
			}
		},
		DownloadHTTPClient: func(context.Context, *protobufs.DownloadableFile) (*http.Client, error) {
			return nil, errNoSyncer
		},
		GetEffectiveConfig: func(context.Context) (*protobufs.EffectiveConfig, error) { return c.effectiveConfig(), nil },
	}
	if err := c.prepare(oc); err != nil {
		c.settings.Logger.Error("cannot start the OpAMP client", "error", err)
		return nil
	}
	// For HTTP the heartbeat is the polling interval (opamp-go sets one from the other).
	heartbeat := c.settings.HeartbeatInterval
	if transport == TransportHTTP {
		heartbeat = c.settings.PollInterval
	}
	// Set before Start: a callback may report through it before Start returns.
	c.mu.Lock()
	c.current = oc
	c.mu.Unlock()
	// AcceptsPackages needs the PackagesStateProvider, which opamp-go learns at Start, and Start
	// validates the capabilities against it: in opamp-go v0.23 only StartSettings.Capabilities
	// (deprecated, open-telemetry/opamp-go#407) can set both at once. The state provider puts the
	// upgrade manager's report (an upgrade that restarted this agent) in the first message.
	var packages clienttypes.PackagesStateProvider
	var startCaps protobufs.AgentCapabilities
	if c.settings.Upgrades != nil {
		packages = packageState{upgrades: c.settings.Upgrades}
		startCaps = baseCapabilities | protobufs.AgentCapabilities_AgentCapabilities_AcceptsPackages |
			protobufs.AgentCapabilities_AgentCapabilities_ReportsPackageStatuses
	}
	err := oc.Start(ctx, clienttypes.StartSettings{
		PackagesStateProvider: packages,
		Capabilities:          startCaps,
		OpAMPServerURL:        serverURL,
		Header:                map[string][]string{"User-Agent": {"spindle-agent/" + c.settings.Version}},
		// Read per upgrade and per poll: a renewed credential replaces the old one, which the
		// gateway refuses from then on, without restarting the client.
		HeaderFunc: func(h http.Header) http.Header {
			h.Set("Authorization", "Bearer "+c.settings.CredentialFunc())
			return h
		},
		InstanceUid:        c.uid,
		RemoteConfigStatus: status,
		HeartbeatInterval:  &heartbeat,
		Callbacks:          callbacks,
	})
	if err != nil {
		c.settings.Logger.Error("cannot start the OpAMP client", "error", err)
		return nil
	}
	return oc
}

// reportPackages sends the upgrade manager's report through the client running now (the next
// client's first message carries it otherwise).
func (c *Client) reportPackages(status upgrade.Status) {
	c.mu.Lock()
	oc := c.current
	c.mu.Unlock()
	if oc == nil || status.OfferHash == "" {
		return
	}
	if err := oc.SetPackageStatuses(packageStatuses(status)); err != nil {
		c.settings.Logger.Warn("could not report the upgrade's status", "error", err)
	}
}

// baseCapabilities are what the agent reports from the first message on (packages come after
// Start: enablePackages).
const baseCapabilities = protobufs.AgentCapabilities_AgentCapabilities_ReportsStatus |
	protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsRemoteConfig |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsEffectiveConfig |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsHealth |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsHeartbeat

// prepare sets what opamp-go requires before Start, in the order it requires: a health before
// the ReportsHealth capability, a description, then the capabilities.
func (c *Client) prepare(oc client.OpAMPClient) error {
	if err := oc.SetHealth(&protobufs.ComponentHealth{Healthy: true, Status: "running",
		StartTimeUnixNano: uint64(c.started.UnixNano()), StatusTimeUnixNano: uint64(time.Now().UnixNano())}); err != nil {
		return fmt.Errorf("set health: %w", err)
	}
	if err := oc.SetAgentDescription(description(c.settings)); err != nil {
		return fmt.Errorf("set agent description: %w", err)
	}
	caps := baseCapabilities
	if err := oc.SetCapabilities(&caps); err != nil {
		return fmt.Errorf("set capabilities: %w", err)
	}
	return nil
}

func (c *Client) setConnected(connected bool, lastError string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.connected, c.lastError = connected, lastError
}
