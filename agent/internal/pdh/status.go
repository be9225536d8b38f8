package pdh

import "fmt"

// pdhStatus is a PDH_STATUS error code (pdhmsg.h).
type pdhStatus uint32

const (
	pdhMoreData     pdhStatus = 0x800007D2
	pdhNoInstance   pdhStatus = 0x800007D1
	pdhNoData       pdhStatus = 0x800007D5
	pdhNoObject     pdhStatus = 0xC0000BB8
	pdhNoCounter    pdhStatus = 0xC0000BB9
	pdhInvalidData  pdhStatus = 0xC0000BC6
	pdhAccessDenied pdhStatus = 0xC0000BDB // PDH_ACCESS_DENIED
)

var pdhMessages = map[pdhStatus]string{
	pdhMoreData:     "buffer too small",
	pdhNoInstance:   "the instance does not exist",
	pdhNoData:       "no data yet",
	pdhNoObject:     "the counter object is not installed on this machine (its service or role is absent, or its counters were disabled with lodctr)",
	pdhNoCounter:    "the counter is not installed on this machine",
	pdhInvalidData:  "the counter returned invalid data",
	pdhAccessDenied: "access denied: the agent's account must be in Performance Monitor Users (or run as LocalSystem)",
}

func (s pdhStatus) Error() string {
	if msg, ok := pdhMessages[s]; ok {
		return fmt.Sprintf("PDH 0x%08X: %s", uint32(s), msg)
	}
	return fmt.Sprintf("PDH 0x%08X", uint32(s))
}

// Is makes a missing object or counter match ErrNoCounter.
func (s pdhStatus) Is(target error) bool {
	return target == ErrNoCounter && (s == pdhNoObject || s == pdhNoCounter || s == pdhNoInstance)
}
