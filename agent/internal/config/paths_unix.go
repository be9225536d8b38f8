//go:build !windows

package config

// Where the agent keeps its files on Linux (and every other Unix build).
var (
	DefaultPath     = "/etc/spindle/agent.yaml"
	DefaultStateDir = "/var/lib/spindle"
)

// usesProcfs: proc_path and sys_path are read (and so validated).
const usesProcfs = true
