package opamp

import "sync"

// registry finds the WebSocket connections of a server, so a policy change can be pushed.
// A server normally has one; briefly two while an agent reconnects.
type registry struct {
	mu       sync.Mutex
	byServer map[string]map[*agentConnection]struct{}
}

func newRegistry() *registry {
	return &registry{byServer: map[string]map[*agentConnection]struct{}{}}
}

func (r *registry) add(serverID string, c *agentConnection) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byServer[serverID] == nil {
		r.byServer[serverID] = map[*agentConnection]struct{}{}
	}
	r.byServer[serverID][c] = struct{}{}
}

func (r *registry) remove(serverID string, c *agentConnection) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byServer[serverID], c)
	if len(r.byServer[serverID]) == 0 {
		delete(r.byServer, serverID)
	}
}

// of returns a snapshot of the server's connections; nil for serverID "" means every connection.
func (r *registry) of(serverID string) []*agentConnection {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*agentConnection
	for id, conns := range r.byServer {
		if serverID != "" && id != serverID {
			continue
		}
		for c := range conns {
			out = append(out, c)
		}
	}
	return out
}

func (r *registry) size() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, conns := range r.byServer {
		n += len(conns)
	}
	return n
}

func (r *registry) disconnectAll() {
	for _, c := range r.of("") {
		c.mu.Lock()
		conn := c.conn
		c.mu.Unlock()
		if conn != nil {
			_ = conn.Disconnect()
		}
	}
}
