package opamp

import "sync"

// registry finds the WebSocket connections of a server, so a policy change can be pushed.
// A server normally has one; briefly two while an agent reconnects.
type registry struct {
	mu       sync.Mutex
	byServer map[string]map[*agentConnection]struct{}
	byAgent  map[string]int // connections per agent (per credential)
}

func newRegistry() *registry {
	return &registry{byServer: map[string]map[*agentConnection]struct{}{}, byAgent: map[string]int{}}
}

// add registers c and returns how many connections c's agent now holds, c included.
func (r *registry) add(serverID string, c *agentConnection) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byServer[serverID] == nil {
		r.byServer[serverID] = map[*agentConnection]struct{}{}
	}
	if _, present := r.byServer[serverID][c]; !present {
		r.byServer[serverID][c] = struct{}{}
		r.byAgent[c.agent.ID]++
	}
	return r.byAgent[c.agent.ID]
}

// countAgent is how many connections the agent holds.
func (r *registry) countAgent(agentID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byAgent[agentID]
}

func (r *registry) remove(serverID string, c *agentConnection) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, present := r.byServer[serverID][c]; present {
		delete(r.byServer[serverID], c)
		if r.byAgent[c.agent.ID]--; r.byAgent[c.agent.ID] <= 0 {
			delete(r.byAgent, c.agent.ID)
		}
	}
	if len(r.byServer[serverID]) == 0 {
		delete(r.byServer, serverID)
	}
}

// of returns a snapshot of the server's connections; nil for serverID "" means every connection.
func (r *registry) of(serverID string) []*agentConnection {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*agentConnection
	if serverID != "" { // a direct lookup: the fan-out asks for thousands of servers in a row
		for c := range r.byServer[serverID] {
			out = append(out, c)
		}
		return out
	}
	for _, conns := range r.byServer {
		for c := range conns {
			out = append(out, c)
		}
	}
	return out
}

// has says whether the server holds a connection here.
func (r *registry) has(serverID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byServer[serverID]) > 0
}

// servers lists the servers holding a connection here.
func (r *registry) servers() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.byServer))
	for id := range r.byServer {
		out = append(out, id)
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
