// Package config is the agent's YAML configuration: typed, defaulted and validated in one
// place. `spindle-agent enroll` writes it (mode 0600: it holds the credential); `run` and
// `status` read it. Later, policy pushed over OpAMP sets the same collector fields.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults.
const (
	DefaultInterval      = 10 * time.Second
	MinInterval          = time.Second
	DefaultProcPath      = "/proc"
	DefaultSysPath       = "/sys"
	DefaultSpoolMaxBytes = 256 << 20
	minSpoolMaxBytes     = 1 << 20
	DefaultLogLevel      = "info"
	DefaultEBPF          = "auto"
	minMRCWindow         = 10 * time.Second
)

// ebpfCollectors are the collectors that load eBPF programs; `ebpf: off` switches them all off.
var ebpfCollectors = []string{"block_latency", "block_split", "mrc", "page_cache"}

// Config is the whole agent.yaml.
type Config struct {
	// Gateway is the base URL of the Spindle gateway (or of an OpenTelemetry Collector in
	// front of it), e.g. https://spindle.example.com:4318.
	Gateway string `yaml:"gateway"`
	// Credential is the agent's own bearer token (spa_…), obtained by enrolment.
	Credential string `yaml:"credential"`
	// Collector, when set, is the base URL of an OpenTelemetry Collector relaying to the gateway
	// (the fan-in role of infra/otel-collector), e.g. http://otelcol.internal:4318: telemetry goes
	// there, each batch carrying the credential as the resource attribute spindle.agent.credential
	// (docs/agent-protocol.md, "Through a Collector"); enrolment, renewal and OpAMP still go to
	// the gateway.
	Collector string `yaml:"collector,omitempty"`
	// CredentialIssuedAt and CredentialExpiresAt are written by renewal (POST /v1/renew); the
	// running agent renews once a third of the lifetime is left, and at start when they are unset.
	CredentialIssuedAt  time.Time `yaml:"credential_issued_at,omitempty"`
	CredentialExpiresAt time.Time `yaml:"credential_expires_at,omitempty"`
	AgentID             string    `yaml:"agent_id"`
	ServerID            string    `yaml:"server_id"`
	// SigningPublicKey is the gateway's Ed25519 public key (PEM) from enrolment: an upgrade's
	// SHA256SUMS must carry its signature before anything downloaded runs.
	SigningPublicKey string `yaml:"signing_public_key,omitempty"`
	// EnrolmentFile, when set, holds the fields above (enrolment.go) instead of this file, which
	// the agent then never rewrites (a package's conffile, a Kubernetes ConfigMap).
	EnrolmentFile string `yaml:"enrolment_file,omitempty"`
	// EnrolmentTokenFile, when set and the agent is not enrolled, is read by `run` for an
	// enrolment token (spe_…), exchanged with the gateway above; the file is removed after.
	EnrolmentTokenFile string `yaml:"enrolment_token_file,omitempty"`
	// HostRoot is where the host's root file system is mounted when the agent runs in a
	// container (/host): its machine id and os-release are read there first.
	HostRoot string `yaml:"host_root,omitempty"`

	Interval time.Duration `yaml:"interval"`
	StateDir string        `yaml:"state_dir"`
	ProcPath string        `yaml:"proc_path"`
	SysPath  string        `yaml:"sys_path"`
	LogLevel string        `yaml:"log_level"`
	// EBPF is auto (use the programs that load, report the others as missing capabilities),
	// on (a program that does not load is an error in status) or off (load none).
	EBPF string `yaml:"ebpf"`

	Spool      SpoolConfig      `yaml:"spool"`
	Collectors CollectorsConfig `yaml:"collectors"`

	Fragmentation FragmentationConfig `yaml:"fragmentation"`
	Databases     DatabasesConfig     `yaml:"databases"`
	ProofRuns     ProofRunConfig      `yaml:"proof_runs,omitempty"`
	// LegacyBench is proof_runs under its old name, still read from agent.yaml files written
	// before the rename (issue 28); both at once is an error.
	LegacyBench *ProofRunConfig `yaml:"bench,omitempty"`
	ReadCache   ReadCacheConfig `yaml:"read_cache"`
	Upgrade     UpgradeConfig   `yaml:"upgrade,omitempty"`
	// WriteOptimization holds what the console's policy cannot change (writeopt.go).
	WriteOptimization WriteOptimizationConfig `yaml:"write_optimization"`

	// PolicyRoots restricts every path a policy from the console may name (read cache, pins,
	// preallocation, defragmentation, fragmentation scans) to these directories, e.g.
	// [/var/lib/postgresql, /srv/pg]. A policy cannot widen it: one naming a path outside is
	// refused whole. Empty (the default) allows any path.
	PolicyRoots []string `yaml:"policy_roots"`
}

// SpoolConfig bounds the on-disk spool of batches not yet acknowledged by the gateway.
type SpoolConfig struct {
	MaxBytes int64 `yaml:"max_bytes"`
}

// CollectorsConfig has one entry per collector; a nil Enabled means the collector's default.
type CollectorsConfig struct {
	Diskstats CollectorConfig `yaml:"diskstats"`
	Meminfo   CollectorConfig `yaml:"meminfo"`
	// Filesystem measures the space of mounted local file systems ("disk filling up").
	Filesystem CollectorConfig `yaml:"filesystem"`

	BlockLatency CollectorConfig `yaml:"block_latency"`
	BlockSplit   CollectorConfig `yaml:"block_split"`
	PageCache    PageCacheConfig `yaml:"page_cache"`
	BlockSamples RetiredSection  `yaml:"block_samples,omitempty"` // retired: see RetiredSection
	MRC          MRCConfig       `yaml:"mrc"`

	Fragmentation CollectorConfig `yaml:"fragmentation"`
	Pgstats       CollectorConfig `yaml:"pgstats"` // default: on when databases.postgresql.dsn is set
	Pressure      CollectorConfig `yaml:"pressure"`
	SQLServer     CollectorConfig `yaml:"sqlserver"` // default: on for Windows
}

// RetiredSection is a collector section an older agent.yaml may still carry: parsed so that
// file keeps working, otherwise ignored; Retired says what replaced it. collectors.block_samples
// (a 1-in-64 block stream nothing read) gave way to the block stream of collectors.mrc.
type RetiredSection map[string]any

// Retired lists the retired sections agent.yaml still sets, each with what to do instead.
func (c Config) Retired() []string {
	if c.Collectors.BlockSamples == nil {
		return nil
	}
	return []string{"collectors.block_samples is retired and ignored: the miss-ratio curves (collectors.mrc) sample block I/O now; remove the section"}
}

// MRCConfig switches the miss-ratio curves and sets their window; zero means the default.
type MRCConfig struct {
	Enabled *bool         `yaml:"enabled,omitempty"`
	Window  time.Duration `yaml:"window,omitempty"` // the span each curve describes (default 5m, 10s to 1h)
}

// PageCacheConfig switches page-cache counting and sizes its list of top files.
type PageCacheConfig struct {
	Enabled  *bool `yaml:"enabled,omitempty"`
	TopFiles int   `yaml:"top_files,omitempty"` // files reported per interval, most accessed (default 10)
}

// maxPageCacheTopFiles matches what the gateway stores per server.
const maxPageCacheTopFiles = 50

// CollectorConfig switches one collector on or off.
type CollectorConfig struct {
	Enabled *bool `yaml:"enabled,omitempty"`
}

// Default returns a config with every default filled in and no enrolment.
func Default() Config {
	return Config{
		Interval: DefaultInterval,
		StateDir: DefaultStateDir,
		ProcPath: DefaultProcPath,
		SysPath:  DefaultSysPath,
		LogLevel: DefaultLogLevel,
		EBPF:     DefaultEBPF,
		Spool:    SpoolConfig{MaxBytes: DefaultSpoolMaxBytes},

		Fragmentation: defaultFragmentation(),
		ReadCache:     ReadCacheConfig{MemoryLatencyPeriod: DefaultMemoryLatencyPeriod},

		WriteOptimization: WriteOptimizationConfig{FirstWrite: FirstWriteAuto, ExtentSizeHint: ExtentSizeHintOff},
	}
}

// Load reads path over the defaults and validates it. A missing file is an error wrapping
// fs.ErrNotExist so `enroll` can start from Default.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Config{}, fmt.Errorf("config %s does not exist: run spindle-agent enroll --token <token> --gateway <url> --config %s (%w)", path, path, err)
		}
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	if err := cfg.loadEnrolmentFile(); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s with %s: %w", path, cfg.EnrolmentFile, err)
	}
	return cfg, nil
}

// Parse decodes YAML over the defaults (unknown keys are errors: a typo must not silently
// turn a setting off) and validates the result.
func Parse(data []byte) (Config, error) {
	cfg := Default()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) /* empty file */ {
		return Config{}, fmt.Errorf("parse YAML: %w", err)
	}
	if cfg.LegacyBench != nil {
		if cfg.ProofRuns.set() {
			return Config{}, errors.New("agent.yaml sets both proof_runs and bench (its old name): keep proof_runs only")
		}
		cfg.ProofRuns, cfg.LegacyBench = *cfg.LegacyBench, nil
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Validate checks every field that has a fixed shape; enrolment fields may be empty (see
// RequireEnrolled).
func (c Config) Validate() error {
	var errs []error
	for _, root := range c.PolicyRoots {
		if !strings.HasPrefix(root, "/") || filepath.Clean(root) != root {
			errs = append(errs, fmt.Errorf("policy_roots: %q must be a clean absolute directory such as /var/lib/postgresql", root))
		}
	}
	if c.Gateway != "" {
		if err := ValidateGatewayURL(c.Gateway); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Collector != "" {
		if err := ValidateGatewayURL(c.Collector); err != nil {
			errs = append(errs, fmt.Errorf("collector: %w", err))
		}
	}
	if strings.HasPrefix(c.Credential, "spe_") {
		errs = append(errs, errors.New("credential is an enrolment token (spe_…), not an agent credential: run spindle-agent enroll --token <that token> to exchange it"))
	}
	if strings.ContainsAny(c.Credential, " \t\r\n") {
		errs = append(errs, errors.New("credential contains whitespace: copy it again"))
	}
	if c.Interval < MinInterval {
		errs = append(errs, fmt.Errorf("interval %s is below the minimum %s", c.Interval, MinInterval))
	}
	for name, p := range map[string]string{"state_dir": c.StateDir, "proc_path": c.ProcPath, "sys_path": c.SysPath} {
		if name != "state_dir" && !usesProcfs {
			continue // a Windows agent never reads them, and "/proc" is not an absolute Windows path
		}
		if p == "" || !filepath.IsAbs(p) {
			errs = append(errs, fmt.Errorf("%s must be an absolute path, got %q", name, p))
		}
	}
	if c.Spool.MaxBytes < minSpoolMaxBytes {
		errs = append(errs, fmt.Errorf("spool.max_bytes %d is below the minimum %d (1 MiB)", c.Spool.MaxBytes, minSpoolMaxBytes))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log_level %q is not one of debug, info, warn, error", c.LogLevel))
	}
	switch c.EBPF {
	case "auto", "on", "off":
	default:
		errs = append(errs, fmt.Errorf("ebpf %q is not one of auto, on, off", c.EBPF))
	}
	// Below a minute a curve rests on few accesses on most hosts (its confidence says so); the
	// short end is there for tests and demonstrations that cannot wait five minutes per curve.
	if w := c.Collectors.MRC.Window; w != 0 && (w < minMRCWindow || w > time.Hour) {
		errs = append(errs, fmt.Errorf("collectors.mrc.window %s must be between %s and 1h", w, minMRCWindow))
	}
	if n := c.Collectors.PageCache.TopFiles; n < 0 || n > maxPageCacheTopFiles {
		errs = append(errs, fmt.Errorf("collectors.page_cache.top_files %d must be between 1 and %d", n, maxPageCacheTopFiles))
	}
	errs = append(errs, c.Fragmentation.validate(), c.Databases.validate(c.Collectors.Pgstats), c.ProofRuns.validate(), c.ReadCache.validate(),
		c.Upgrade.validate(), c.validateEnrolmentPaths(), c.WriteOptimization.validate())
	return errors.Join(errs...)
}

// ValidateGatewayURL accepts an http(s) base URL without query or fragment.
func ValidateGatewayURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("gateway %q is not a URL: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("gateway %q must look like https://host:4318", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("gateway %q must not have a query or fragment", raw)
	}
	return nil
}

// RequireEnrolled returns an error telling the user how to enrol when any enrolment field
// is missing.
func (c Config) RequireEnrolled(path string) error {
	var missing []string
	for name, v := range map[string]string{"gateway": c.Gateway, "credential": c.Credential, "agent_id": c.AgentID, "server_id": c.ServerID} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("not enrolled (%s has no %s): run spindle-agent enroll --token <token from the console> --gateway <url> --config %s",
		path, strings.Join(sortedCopy(missing), ", "), path)
}

// EnabledCollectors resolves the per-collector switches against each collector's default.
func (c Config) EnabledCollectors(enabledByDefault func(name string) bool) []string {
	var names []string
	for name, cc := range c.collectorSwitches() {
		if c.EBPF == "off" && slices.Contains(ebpfCollectors, name) {
			continue
		}
		on := enabledByDefault(name)
		if name == "pgstats" { // has nothing to read until a connection is configured
			on = c.Databases.PostgreSQL.DSN != ""
		}
		if cc.Enabled != nil {
			on = *cc.Enabled
		}
		if on {
			names = append(names, name)
		}
	}
	return sortedCopy(names)
}

func (c Config) collectorSwitches() map[string]CollectorConfig {
	return map[string]CollectorConfig{
		"diskstats": c.Collectors.Diskstats, "meminfo": c.Collectors.Meminfo,
		"filesystem":    c.Collectors.Filesystem,
		"block_latency": c.Collectors.BlockLatency, "block_split": c.Collectors.BlockSplit,
		"page_cache":    {Enabled: c.Collectors.PageCache.Enabled},
		"mrc":           {Enabled: c.Collectors.MRC.Enabled},
		"fragmentation": c.Collectors.Fragmentation, "pgstats": c.Collectors.Pgstats, "pressure": c.Collectors.Pressure,
		"sqlserver": c.Collectors.SQLServer,
	}
}

// WhyOff says why a collector is not running, for the capability list.
func (c Config) WhyOff(name string) string {
	if c.EBPF == "off" && slices.Contains(ebpfCollectors, name) {
		return "switched off in the config (ebpf: off)"
	}
	if name == "pgstats" && c.Databases.PostgreSQL.DSN == "" {
		return "not configured: set databases.postgresql.dsn in agent.yaml"
	}
	return fmt.Sprintf("switched off in the config (collectors.%s.enabled: false)", name)
}

// SpoolDir is where unacknowledged batches wait.
func (c Config) SpoolDir() string { return filepath.Join(c.StateDir, "spool") }

// StatusPath is the file the running agent refreshes every tick for `spindle-agent status`.
func (c Config) StatusPath() string { return filepath.Join(c.StateDir, "status.json") }

// SequencePath persists the last batch sequence number handed out.
func (c Config) SequencePath() string { return filepath.Join(c.StateDir, "batch.seq") }
