package accel

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mincore is mincore(2) (golang.org/x/sys/unix has no wrapper): one byte per page of mapping
// into vector, bit 0 set when the page is resident.
func Mincore(mapping []byte, vector []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mapping[0])),
		uintptr(len(mapping)), uintptr(unsafe.Pointer(&vector[0])))
	if errno != 0 {
		return errno
	}
	return nil
}
