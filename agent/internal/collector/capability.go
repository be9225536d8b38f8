package collector

// Capability is one thing the agent can or cannot observe on this host, as status.json and the
// console show it: "ebpf.block_latency available", or missing with the reason.
type Capability struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why it is missing, and what to do
}

// CapabilityReporter is implemented by collectors whose data source may be missing on a host
// (the eBPF ones). Their factories never fail for that: the collector reports it instead.
type CapabilityReporter interface {
	Capability() Capability
}

// capabilityOf names the capability each such collector provides.
var capabilityOf = map[string]string{}

// registerCapability is called from a collector's init next to register.
func registerCapability(collectorName, capability string) { capabilityOf[collectorName] = capability }

// Capabilities reports every capability a registered collector provides: from the built
// collector when it runs, otherwise missing with notRunning(collector name) as the reason
// (switched off in the config, say). Ordered by collector name.
func Capabilities(built []Named, notRunning func(collectorName string) string) []Capability {
	running := map[string]CapabilityReporter{}
	for _, c := range built {
		if r, ok := c.Collector.(CapabilityReporter); ok {
			running[c.Name] = r
		}
	}
	var out []Capability
	for _, name := range Names() {
		capability, ok := capabilityOf[name]
		if !ok {
			continue
		}
		if r, ok := running[name]; ok {
			out = append(out, r.Capability())
			continue
		}
		out = append(out, Capability{Name: capability, Reason: notRunning(name)})
	}
	return out
}

// AvailableCapabilities lists the names of the capabilities that work.
func AvailableCapabilities(caps []Capability) []string {
	names := []string{}
	for _, c := range caps {
		if c.Available {
			names = append(names, c.Name)
		}
	}
	return names
}
