package wininstall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/enroll"
	"github.com/spindle-io/spindle/agent/internal/winservice"
)

// InstallDir is %ProgramFiles%\Spindle, where the service's executable lives.
func InstallDir() string {
	dir := os.Getenv("ProgramFiles")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = `C:\Program Files`
	}
	return filepath.Join(dir, "Spindle")
}

// InstalledExecutable is the service's executable.
func InstalledExecutable() string { return filepath.Join(InstallDir(), "spindle-agent.exe") }

// Install enrols, secures, copies, registers and starts; see the package comment.
func Install(ctx context.Context, o Options) error {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	if err := os.MkdirAll(config.DataDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", config.DataDir, err)
	}
	if err := secure(config.DataDir, out); err != nil {
		return err
	}

	if err := ensureEnrolled(ctx, o, out); err != nil {
		return err
	}
	if err := secure(config.DefaultPath, out); err != nil {
		return err
	}

	exe := InstalledExecutable()
	if err := installExecutable(o.Executable, exe); err != nil {
		return err
	}
	fmt.Fprintf(out, "agent: %s\n", exe)

	state, err := winservice.Register(winservice.Registration{
		Executable: exe, Args: []string{"run", "--service", "--config", config.DefaultPath},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "service %s registered: starts at boot\n", winservice.Name)
	if state.RecoveryActions {
		fmt.Fprintf(out, "service %s restarts on failure (after %v)\n", winservice.Name, winservice.RestartDelays)
	}
	if state.RecoveryError != nil {
		fmt.Fprintf(out, "warning: %v\n", state.RecoveryError)
	}
	if o.NoStart {
		fmt.Fprintf(out, "not started (--no-start): Start-Service %s\n", winservice.Name)
		return nil
	}
	if err := winservice.Start(ServiceTimeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "service %s running; logs: the Application event log (source %s) and %s\n",
		winservice.Name, winservice.Name, filepath.Join(config.DataDir, "agent.log"))
	return nil
}

// secure restricts path to SYSTEM and Administrators and says so; see underWine for the one
// place where a refusal is not fatal.
func secure(path string, out io.Writer) error {
	err := restrict(path)
	switch {
	case err == nil:
		fmt.Fprintf(out, "%s: access limited to SYSTEM and Administrators\n", path)
		return nil
	case underWine():
		fmt.Fprintf(out, "warning: Wine keeps no access lists, %s is not restricted: %v\n", path, err)
		return nil
	default:
		return err
	}
}

// ensureEnrolled keeps an existing enrolment (as install.sh does: running install again must
// not create a second server) and enrols otherwise.
func ensureEnrolled(ctx context.Context, o Options, out io.Writer) error {
	cfg, err := config.Load(config.DefaultPath)
	if err == nil && cfg.RequireEnrolled(config.DefaultPath) == nil {
		fmt.Fprintf(out, "already enrolled as server %s with %s (to enrol again, run uninstall first)\n", cfg.ServerID, cfg.Gateway)
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if o.Token == "" || o.Gateway == "" {
		return errors.New("this agent is not enrolled yet: install needs --token (or --token-file) and --gateway, which the console's Add server page shows")
	}
	res, err := enroll.Enroll(ctx, enroll.Options{
		ConfigPath: config.DefaultPath, StateDir: config.DefaultStateDir, Token: o.Token, Gateway: o.Gateway, AgentVersion: o.AgentVersion,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "enrolled %s as server %s (agent %s); configuration: %s\n",
		res.Host.Hostname, res.Response.ServerID, res.Response.AgentID, config.DefaultPath)
	return nil
}

// installExecutable copies src to dst (unless they are the same file), stopping the service
// first so its executable can be replaced.
func installExecutable(src, dst string) error {
	if strings.EqualFold(filepath.Clean(src), filepath.Clean(dst)) {
		return nil
	}
	if err := winservice.Stop(ServiceTimeout); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("read the agent executable: %w", err)
	}
	defer in.Close()
	tmp := dst + ".new"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("install %s: %w", dst, err)
	}
	return nil
}

// Uninstall stops and deletes the service and removes the executable, the configuration and
// the state. Whatever is already gone is skipped, so it can run again.
func Uninstall(o Options) error {
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	removed, err := winservice.Remove(ServiceTimeout)
	if err != nil {
		return err
	}
	if removed {
		fmt.Fprintf(out, "service %s stopped and removed\n", winservice.Name)
	}
	if err := removeTree(config.DataDir); err != nil {
		return fmt.Errorf("remove %s: %w", config.DataDir, err)
	}
	fmt.Fprintf(out, "removed %s (configuration, credential, spool)\n", config.DataDir)
	dir := InstallDir()
	err = removeTree(dir)
	if err != nil && strings.EqualFold(filepath.Clean(o.Executable), filepath.Clean(InstalledExecutable())) {
		// A running executable cannot be deleted on Windows: this is the installed copy itself.
		if derr := deleteAtReboot(InstalledExecutable(), dir); derr != nil {
			return fmt.Errorf("remove %s: %w (and scheduling it for the next restart failed: %v)", dir, err, derr)
		}
		fmt.Fprintf(out, "%s is this running program: it is deleted at the next restart\n", dir)
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	fmt.Fprintf(out, "removed %s\nthe Spindle agent is removed from this host\n", dir)
	return nil
}

func deleteAtReboot(paths ...string) error {
	for _, p := range paths {
		name, err := windows.UTF16PtrFromString(p)
		if err != nil {
			return err
		}
		if err := windows.MoveFileEx(name, nil, windows.MOVEFILE_DELAY_UNTIL_REBOOT); err != nil {
			return err
		}
	}
	return nil
}
