package writeopt

import (
	"encoding/binary"
	"unicode/utf16"
)

// ReadDirectoryChangesW fills its buffer with FILE_NOTIFY_INFORMATION records (winnt.h),
// little-endian, each DWORD-aligned:
//
//	DWORD NextEntryOffset; DWORD Action; DWORD FileNameLength (bytes); WCHAR FileName[];
//
// NextEntryOffset 0 ends the list. The decoding is here, apart from the syscall
// (watch_windows.go), so it is tested on every OS.
const (
	fileActionAdded          = 1
	fileActionRemoved        = 2
	fileActionModified       = 3
	fileActionRenamedOldName = 4
	fileActionRenamedNewName = 5
	notifyHeaderBytes        = 12
)

// notification is one record: what happened to name (relative to the watched directory).
type notification struct {
	action uint32
	name   string
}

// decodeNotifications returns the records of buffer, stopping at the first that does not fit
// (a truncated or damaged buffer yields what came before it, never a panic or a loop).
func decodeNotifications(buffer []byte) []notification {
	var out []notification
	for offset := 0; offset+notifyHeaderBytes <= len(buffer); {
		next := int(binary.LittleEndian.Uint32(buffer[offset:]))
		action := binary.LittleEndian.Uint32(buffer[offset+4:])
		nameBytes := int(binary.LittleEndian.Uint32(buffer[offset+8:]))
		start := offset + notifyHeaderBytes
		if nameBytes%2 != 0 || nameBytes > len(buffer)-start {
			break
		}
		units := make([]uint16, nameBytes/2)
		for i := range units {
			units[i] = binary.LittleEndian.Uint16(buffer[start+2*i:])
		}
		out = append(out, notification{action: action, name: string(utf16.Decode(units))})
		if next <= 0 || next%4 != 0 {
			break
		}
		offset += next
	}
	return out
}
