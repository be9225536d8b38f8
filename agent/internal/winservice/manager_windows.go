package winservice

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
	"golang.org/x/sys/windows/svc/mgr"
)

// connect opens the SCM with the rights install and uninstall need; without elevation Windows
// refuses it, which is the clearest place to say what to do.
func connect() (*mgr.Mgr, error) {
	m, err := mgr.Connect()
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return nil, errors.New("the service control manager refused access: run this from an elevated PowerShell (Run as administrator)")
	}
	if err != nil {
		return nil, fmt.Errorf("connect to the service control manager: %w", err)
	}
	return m, nil
}

// Register creates the service, or updates it when it exists (a second install, or the one the
// MSI created), so running install again converges on the same registration. It also sets the
// recovery actions and the event log source.
func Register(r Registration) (Registered, error) {
	m, err := connect()
	if err != nil {
		return Registered{}, err
	}
	defer m.Disconnect()
	cfg := mgr.Config{
		ServiceType: windows.SERVICE_WIN32_OWN_PROCESS, StartType: mgr.StartAutomatic,
		ErrorControl: mgr.ErrorNormal, DisplayName: DisplayName, Description: Description,
		ServiceStartName: "LocalSystem",
	}
	s, err := m.OpenService(Name)
	switch {
	case err == nil:
		cfg.BinaryPathName = commandLine(r.Executable, r.Args)
		if err := update(s, cfg); err != nil {
			s.Close()
			return Registered{}, fmt.Errorf("update the %s service: %w", Name, err)
		}
	case errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST):
		s, err = m.CreateService(Name, r.Executable, cfg, r.Args...)
		if err != nil {
			return Registered{}, fmt.Errorf("create the %s service: %w", Name, err)
		}
	default:
		return Registered{}, fmt.Errorf("open the %s service: %w", Name, err)
	}
	defer s.Close()
	state := Registered{RecoveryActions: true}
	if err := setRecovery(s); err != nil {
		state.RecoveryActions, state.RecoveryError = errors.Is(err, ErrNoRestartOnError), err
	}
	if err := eventlog.InstallAsEventCreate(Name, eventlog.Error|eventlog.Warning|eventlog.Info); err != nil && !alreadyExists(err) {
		return state, fmt.Errorf("register the event log source %s: %w", Name, err)
	}
	return state, nil
}

// update rewrites an existing service's configuration with ChangeServiceConfig and its
// description. mgr.Service.UpdateConfig also writes the SID type and delayed start, which Wine 8
// refuses ("Invalid level"); neither is set here, so leaving them out changes nothing.
func update(s *mgr.Service, c mgr.Config) error {
	ptr := func(v string) *uint16 {
		p, _ := windows.UTF16PtrFromString(v)
		return p
	}
	err := windows.ChangeServiceConfig(s.Handle, c.ServiceType, c.StartType, c.ErrorControl,
		ptr(c.BinaryPathName), nil, nil, nil, ptr(c.ServiceStartName), nil, ptr(c.DisplayName))
	if err != nil {
		return err
	}
	desc := windows.SERVICE_DESCRIPTION{Description: ptr(c.Description)}
	return windows.ChangeServiceConfig2(s.Handle, windows.SERVICE_CONFIG_DESCRIPTION, (*byte)(unsafe.Pointer(&desc)))
}

// setRecovery makes the SCM restart the agent after a crash and, where the SCM allows it, after
// it stops with an error (the run loop returning one); it reads the actions back, so a refusal
// is reported rather than assumed away.
func setRecovery(s *mgr.Service) error {
	actions := make([]mgr.RecoveryAction, len(RestartDelays))
	for i, d := range RestartDelays {
		actions[i] = mgr.RecoveryAction{Type: mgr.ServiceRestart, Delay: d}
	}
	if err := s.SetRecoveryActions(actions, uint32(RestartResetPeriod/time.Second)); err != nil {
		return fmt.Errorf("set the recovery actions: %w", err)
	}
	got, err := s.RecoveryActions()
	if err != nil {
		return fmt.Errorf("read the recovery actions back: %w", err)
	}
	if len(got) != len(actions) || got[0].Type != mgr.ServiceRestart || got[0].Delay != actions[0].Delay {
		return fmt.Errorf("the recovery actions read back are %v, not the %d restarts set", got, len(actions))
	}
	if err := s.SetRecoveryActionsOnNonCrashFailures(true); err != nil {
		return fmt.Errorf("%w: the restarts apply after a crash, not after the agent stops with an error (%v)", ErrNoRestartOnError, err)
	}
	return nil
}

// Start starts the service unless it runs, and waits up to timeout for it to report Running.
func Start(timeout time.Duration) error {
	m, err := connect()
	if err != nil {
		return err
	}
	defer m.Disconnect()
	s, err := m.OpenService(Name)
	if err != nil {
		return fmt.Errorf("open the %s service: %w", Name, err)
	}
	defer s.Close()
	if err := s.Start(); err != nil && !errors.Is(err, windows.ERROR_SERVICE_ALREADY_RUNNING) {
		return fmt.Errorf("start the %s service: %w (the event log, source %s, and %s say why)", Name, err, Name, "agent.log")
	}
	return waitFor(s, svc.Running, timeout)
}

// Remove stops the service (waiting up to timeout) and deletes it, with its event log source.
// removed is false when there was no service: uninstall is idempotent.
func Remove(timeout time.Duration) (removed bool, err error) {
	m, err := connect()
	if err != nil {
		return false, err
	}
	defer m.Disconnect()
	s, err := m.OpenService(Name)
	if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		_ = eventlog.Remove(Name)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open the %s service: %w", Name, err)
	}
	defer s.Close()
	if err := stopService(s, timeout); err != nil {
		return false, err
	}
	if err := s.Delete(); err != nil && !errors.Is(err, windows.ERROR_SERVICE_MARKED_FOR_DELETE) {
		return false, fmt.Errorf("delete the %s service: %w", Name, err)
	}
	if err := eventlog.Remove(Name); err != nil && !errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
		return true, fmt.Errorf("remove the event log source %s: %w", Name, err)
	}
	return true, nil
}

func waitFor(s *mgr.Service, want svc.State, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		st, err := s.Query()
		if err != nil {
			return fmt.Errorf("query the %s service: %w", Name, err)
		}
		if st.State == want {
			return nil
		}
		if want == svc.Running && st.State == svc.Stopped {
			return fmt.Errorf("the %s service stopped right after starting: the event log (source %s) and agent.log in the data directory say why", Name, Name)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the %s service did not reach state %d within %s (it is in state %d)", Name, want, timeout, st.State)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// commandLine quotes the executable and arguments the way CreateService does, for UpdateConfig.
func commandLine(exe string, args []string) string {
	parts := []string{syscall.EscapeArg(exe)}
	for _, a := range args {
		parts = append(parts, syscall.EscapeArg(a))
	}
	return strings.Join(parts, " ")
}

// alreadyExists: InstallAsEventCreate has no sentinel for a source registered before (a second
// install), only this message.
func alreadyExists(err error) bool {
	return strings.Contains(err.Error(), "registry key already exists")
}

// Stop stops the service when it runs and waits up to timeout; no service is not an error.
func Stop(timeout time.Duration) error {
	m, err := connect()
	if err != nil {
		return err
	}
	defer m.Disconnect()
	s, err := m.OpenService(Name)
	if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open the %s service: %w", Name, err)
	}
	defer s.Close()
	return stopService(s, timeout)
}

func stopService(s *mgr.Service, timeout time.Duration) error {
	st, err := s.Query()
	if err != nil {
		return fmt.Errorf("query the %s service: %w", Name, err)
	}
	if st.State == svc.Stopped {
		return nil
	}
	if _, err := s.Control(svc.Stop); err != nil && !errors.Is(err, windows.ERROR_SERVICE_NOT_ACTIVE) {
		return fmt.Errorf("stop the %s service: %w", Name, err)
	}
	return waitFor(s, svc.Stopped, timeout)
}

// Running reports whether the service is running (or starting): the upgrade watchdog watches a
// new binary with it.
func Running() (bool, error) {
	m, err := connect()
	if err != nil {
		return false, err
	}
	defer m.Disconnect()
	s, err := m.OpenService(Name)
	if err != nil {
		return false, fmt.Errorf("open the %s service: %w", Name, err)
	}
	defer s.Close()
	st, err := s.Query()
	if err != nil {
		return false, fmt.Errorf("query the %s service: %w", Name, err)
	}
	return st.State == svc.Running || st.State == svc.StartPending, nil
}
