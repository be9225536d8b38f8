package upgrade

import "github.com/spindle-io/spindle/agent/internal/config"

func testUpgradeConfig(pidFile string) config.UpgradeConfig {
	return config.UpgradeConfig{PIDFile: pidFile, LogFile: "/tmp/unused.log"}
}
