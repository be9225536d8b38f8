package pdh

import (
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The few PDH functions the agent needs (pdh.h); the W variants take UTF-16 paths.
var (
	pdhDLL                = windows.NewLazySystemDLL("pdh.dll")
	procOpenQuery         = pdhDLL.NewProc("PdhOpenQueryW")
	procAddEnglishCounter = pdhDLL.NewProc("PdhAddEnglishCounterW")
	procCollectQueryData  = pdhDLL.NewProc("PdhCollectQueryData")
	procGetRawArray       = pdhDLL.NewProc("PdhGetRawCounterArrayW")
	procGetRawValue       = pdhDLL.NewProc("PdhGetRawCounterValue")
	procGetTimeBase       = pdhDLL.NewProc("PdhGetCounterTimeBase")
	procCloseQuery        = pdhDLL.NewProc("PdhCloseQuery")
)

// PDH_RAW_COUNTER: CStatus, a FILETIME, then two LONGLONGs (aligned to 8) and MultiCount.
type rawCounter struct {
	CStatus    uint32
	TimeStamp  windows.Filetime
	FirstValue int64
	Second     int64
	MultiCount uint32
}

// PDH_RAW_COUNTER_ITEM_W: the instance name (pointing into the same buffer) and its value.
type rawCounterItem struct {
	Name     *uint16
	RawValue rawCounter
}

type counterHandle struct {
	spec   Spec
	handle uintptr
}

type query struct {
	handle   uintptr
	counters []counterHandle
}

// Open adds every counter to one PDH query. A counter whose object is not installed here fails
// with an error wrapping ErrNoCounter.
func Open(specs []Spec) (Query, error) {
	if err := pdhDLL.Load(); err != nil {
		return nil, fmt.Errorf("load pdh.dll: %w", err)
	}
	q := &query{}
	if err := call(procOpenQuery, 0, 0, uintptr(unsafe.Pointer(&q.handle))); err != nil {
		return nil, fmt.Errorf("PdhOpenQuery: %w", err)
	}
	for _, spec := range specs {
		path := spec.Path(spec.Instanced)
		p, err := windows.UTF16PtrFromString(path)
		if err != nil {
			q.Close()
			return nil, fmt.Errorf("counter path %q: %w", path, err)
		}
		var h uintptr
		if err := call(procAddEnglishCounter, q.handle, uintptr(unsafe.Pointer(p)), 0, uintptr(unsafe.Pointer(&h))); err != nil {
			q.Close()
			return nil, fmt.Errorf("add counter %s: %w", path, err)
		}
		q.counters = append(q.counters, counterHandle{spec: spec, handle: h})
	}
	return q, nil
}

func (q *query) Collect() (Snapshot, error) {
	if err := call(procCollectQueryData, q.handle); err != nil {
		return Snapshot{}, fmt.Errorf("PdhCollectQueryData: %w", err)
	}
	s := Snapshot{Values: map[Counter]map[string]Raw{}, TimeBase: map[Counter]int64{}}
	for _, c := range q.counters {
		var ticks int64
		// Only timer counters have a time base; for the others PDH refuses, which is fine.
		if call(procGetTimeBase, c.handle, uintptr(unsafe.Pointer(&ticks))) == nil && ticks > 0 {
			s.TimeBase[c.spec.Counter] = ticks
		}
		if !c.spec.Instanced {
			var v rawCounter
			if err := call(procGetRawValue, c.handle, 0, uintptr(unsafe.Pointer(&v))); err != nil {
				return Snapshot{}, fmt.Errorf("read %s: %w", c.spec.Path(false), err)
			}
			if validStatus(v.CStatus) {
				s.put(c.spec.Counter, NoInstance, Raw{First: v.FirstValue, Second: v.Second})
			}
			continue
		}
		if err := s.readArray(c); err != nil {
			return Snapshot{}, err
		}
	}
	return s, nil
}

// readArray reads every instance of a wildcard counter. The first call asks for the size; the
// instance list may grow between calls (a disk attached), so it asks again a few times.
func (s Snapshot) readArray(c counterHandle) error {
	var size, count uint32
	for attempt := 0; attempt < 4; attempt++ {
		var buf []rawCounterItem
		var ptr uintptr
		if size > 0 {
			buf = make([]rawCounterItem, int(size)/int(unsafe.Sizeof(rawCounterItem{}))+1)
			ptr = uintptr(unsafe.Pointer(&buf[0]))
		}
		err := call(procGetRawArray, c.handle, uintptr(unsafe.Pointer(&size)), uintptr(unsafe.Pointer(&count)), ptr)
		var status pdhStatus
		if errors.As(err, &status) && status == pdhMoreData {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", c.spec.Path(true), err)
		}
		seen := map[string]int{}
		for _, item := range buf[:count] {
			if !validStatus(item.RawValue.CStatus) {
				continue
			}
			name := windows.UTF16PtrToString(item.Name)
			// Duplicate instance names get "#1", "#2", as Performance Monitor shows them.
			if n := seen[name]; n > 0 {
				seen[name] = n + 1
				name += "#" + strconv.Itoa(n)
			} else {
				seen[name] = 1
			}
			s.put(c.spec.Counter, name, Raw{First: item.RawValue.FirstValue, Second: item.RawValue.Second})
		}
		return nil
	}
	return fmt.Errorf("read %s: the instance list kept growing", c.spec.Path(true))
}

func (q *query) Close() error {
	if q.handle == 0 {
		return nil
	}
	err := call(procCloseQuery, q.handle)
	q.handle = 0
	return err
}

func call(proc *windows.LazyProc, args ...uintptr) error {
	r, _, _ := proc.Call(args...)
	if r != 0 {
		return pdhStatus(uint32(r))
	}
	return nil
}

func validStatus(cstatus uint32) bool { return cstatus == 0 || cstatus == 1 } // VALID_DATA, NEW_DATA
