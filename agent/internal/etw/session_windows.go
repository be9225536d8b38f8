package etw

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/windows"
)

var (
	advapi32         = windows.NewLazySystemDLL("advapi32.dll")
	procStartTrace   = advapi32.NewProc("StartTraceW")
	procControlTrace = advapi32.NewProc("ControlTraceW")
	procOpenTrace    = advapi32.NewProc("OpenTraceW")
	procProcessTrace = advapi32.NewProc("ProcessTrace")
	procCloseTrace   = advapi32.NewProc("CloseTrace")
	procQPCFrequency = windows.NewLazySystemDLL("kernel32.dll").NewProc("QueryPerformanceFrequency")
)

// The kernel logger and its disk I/O events (evntrace.h, the DiskIo MOF class).
const kernelLoggerName = "NT Kernel Logger"

var (
	systemTraceControlGUID = windows.GUID{Data1: 0x9e814aad, Data2: 0x3204, Data3: 0x11d2, Data4: [8]byte{0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39}}
	diskIoGUID             = windows.GUID{Data1: 0x3d6fa8d4, Data2: 0xfe05, Data3: 0x11d0, Data4: [8]byte{0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}
)

const (
	eventTraceFlagDiskIO    = 0x00000100
	eventTraceRealTimeMode  = 0x00000100
	wnodeFlagTracedGUID     = 0x00020000
	clientContextQPC        = 1
	eventTraceControlStop   = 1
	processTraceRealTime    = 0x00000100
	processTraceEventRecord = 0x10000000
	invalidTraceHandle      = ^uint64(0)
)

// Offsets in EVENT_TRACE_PROPERTIES (x64; WNODE_HEADER is its first 48 bytes), in
// EVENT_TRACE_LOGFILEW (448 bytes on x64) and in EVENT_RECORD / EVENT_HEADER (evntcons.h).
const (
	propsSize                 = 120
	propsWnodeBufferSize      = 0
	propsWnodeGUID            = 24
	propsWnodeClientContext   = 40
	propsWnodeFlags           = 44
	propsBufferSizeKB         = 48
	propsLogFileMode          = 64
	propsEnableFlags          = 72
	propsLoggerNameOffset     = 116
	logfileSize               = 448
	logfileLoggerName         = 8
	logfileProcessTraceMode   = 28
	logfileEventRecordCallbck = 424
	recordProviderID          = 24
	recordOpcode              = 45
	recordUserDataLength      = 86
	recordUserData            = 96
)

// Session is the NT Kernel Logger in real-time mode with the disk I/O flag, consumed in this
// process. Only one such session exists per machine: if another tool (xperf, WPR, Process
// Monitor) holds it, Start fails and says so.
type Session struct {
	props      []uint64 // EVENT_TRACE_PROPERTIES followed by the logger name
	name       []uint16
	logfile    []uint64 // EVENT_TRACE_LOGFILEW
	handle     uint64
	histograms *Histograms
	done       chan struct{}
	closeOnce  sync.Once
}

// current is the session the one process-wide callback feeds (NewCallback slots are never freed).
var (
	current      atomic.Pointer[Session]
	callbackOnce sync.Once
	callback     uintptr
)

// Start starts the kernel logger's disk I/O events and consumes them on a thread of its own.
func Start() (*Session, error) {
	var freq int64
	if r, _, err := procQPCFrequency.Call(uintptr(unsafe.Pointer(&freq))); r == 0 || freq <= 0 {
		return nil, fmt.Errorf("QueryPerformanceFrequency: %w", err)
	}
	name, _ := windows.UTF16FromString(kernelLoggerName)
	s := &Session{name: name, histograms: NewHistograms(uint64(freq)), done: make(chan struct{})}
	s.props = s.newProperties()
	var control uint64
	if r, _, _ := procStartTrace.Call(uintptr(unsafe.Pointer(&control)), uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&s.props[0]))); r != 0 {
		return nil, startError(windows.Errno(r))
	}
	callbackOnce.Do(func() { callback = windows.NewCallback(onEvent) })
	s.logfile = make([]uint64, logfileSize/8)
	lf := unsafe.Slice((*byte)(unsafe.Pointer(&s.logfile[0])), logfileSize)
	*(*uintptr)(unsafe.Pointer(&lf[logfileLoggerName])) = uintptr(unsafe.Pointer(&name[0]))
	*(*uint32)(unsafe.Pointer(&lf[logfileProcessTraceMode])) = processTraceRealTime | processTraceEventRecord
	*(*uintptr)(unsafe.Pointer(&lf[logfileEventRecordCallbck])) = callback
	r, _, err := procOpenTrace.Call(uintptr(unsafe.Pointer(&s.logfile[0])))
	if uint64(r) == invalidTraceHandle {
		s.stop()
		return nil, fmt.Errorf("%w: OpenTrace on the kernel logger: %w", ErrUnsupported, err)
	}
	s.handle = uint64(r)
	if !current.CompareAndSwap(nil, s) {
		s.stop()
		return nil, errors.New("a kernel disk I/O session is already being consumed in this process")
	}
	go s.process()
	return s, nil
}

func (s *Session) newProperties() []uint64 {
	total := propsSize + 2*len(s.name)
	props := make([]uint64, (total+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&props[0])), len(props)*8)
	put32 := func(at int, v uint32) { *(*uint32)(unsafe.Pointer(&b[at])) = v }
	put32(propsWnodeBufferSize, uint32(len(b)))
	*(*windows.GUID)(unsafe.Pointer(&b[propsWnodeGUID])) = systemTraceControlGUID
	put32(propsWnodeClientContext, clientContextQPC)
	put32(propsWnodeFlags, wnodeFlagTracedGUID)
	put32(propsBufferSizeKB, 64)
	put32(propsLogFileMode, eventTraceRealTimeMode)
	put32(propsEnableFlags, eventTraceFlagDiskIO)
	put32(propsLoggerNameOffset, propsSize)
	return props
}

// process runs ProcessTrace, which delivers events until the session stops.
func (s *Session) process() {
	defer close(s.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, _, _ = procProcessTrace.Call(uintptr(unsafe.Pointer(&s.handle)), 1, 0, 0)
}

// onEvent is the EVENT_RECORD callback, on ProcessTrace's thread.
func onEvent(record *[recordUserData + 8]byte) uintptr {
	s := current.Load()
	if s == nil {
		return 0
	}
	rec := record[:]
	if *(*windows.GUID)(unsafe.Pointer(&rec[recordProviderID])) != diskIoGUID {
		return 0
	}
	length := *(*uint16)(unsafe.Pointer(&rec[recordUserDataLength]))
	data := *(*unsafe.Pointer)(unsafe.Pointer(&rec[recordUserData]))
	if data == nil || length == 0 {
		return 0
	}
	payload := unsafe.Slice((*byte)(data), length)
	if e, ok, err := ParseDiskEvent(rec[recordOpcode], payload); ok && err == nil {
		s.histograms.Add(e)
	}
	return 0
}

// Histograms are the cumulative latency histograms since Start.
func (s *Session) Histograms() *Histograms { return s.histograms }

// Close stops the kernel logger and waits for ProcessTrace to return.
func (s *Session) Close() error {
	var err error
	s.closeOnce.Do(func() {
		err = s.stop()
		_, _, _ = procCloseTrace.Call(uintptr(s.handle))
		<-s.done
		current.CompareAndSwap(s, nil)
	})
	return err
}

func (s *Session) stop() error {
	if r, _, _ := procControlTrace.Call(0, uintptr(unsafe.Pointer(&s.name[0])), uintptr(unsafe.Pointer(&s.props[0])), eventTraceControlStop); r != 0 {
		return fmt.Errorf("stop the kernel logger: %w", windows.Errno(r))
	}
	return nil
}

// startError says why the kernel logger could not start, and what to do.
func startError(code windows.Errno) error {
	switch code {
	case windows.ERROR_ALREADY_EXISTS:
		return fmt.Errorf("%w: the NT Kernel Logger session is in use by another tool (xperf, WPR, Process Monitor) or was left running by an agent that crashed; stop it (logman stop \"NT Kernel Logger\" -ets) and restart the agent", ErrUnsupported)
	case windows.ERROR_ACCESS_DENIED:
		return fmt.Errorf("%w: starting the NT Kernel Logger needs an administrator, LocalSystem or a member of Performance Log Users", ErrUnsupported)
	}
	return fmt.Errorf("%w: StartTrace on the NT Kernel Logger: %w", ErrUnsupported, code)
}
