package writeopt

import (
	"encoding/binary"
	"reflect"
	"testing"
	"unicode/utf16"
)

// record builds one FILE_NOTIFY_INFORMATION as Windows lays it out, padded to a DWORD.
func record(action uint32, name string, last bool) []byte {
	units := utf16.Encode([]rune(name))
	size := (notifyHeaderBytes + 2*len(units) + 3) &^ 3
	b := make([]byte, size)
	if !last {
		binary.LittleEndian.PutUint32(b[0:], uint32(size))
	}
	binary.LittleEndian.PutUint32(b[4:], action)
	binary.LittleEndian.PutUint32(b[8:], uint32(2*len(units)))
	for i, u := range units {
		binary.LittleEndian.PutUint16(b[notifyHeaderBytes+2*i:], u)
	}
	return b
}

func TestDecodeNotificationsReadsEveryRecordOfABuffer(t *testing.T) {
	var buffer []byte
	buffer = append(buffer, record(fileActionAdded, `logs\app.log`, false)...)
	buffer = append(buffer, record(fileActionModified, `logs\app.log`, false)...)
	buffer = append(buffer, record(fileActionRenamedNewName, `données.ldf`, true)...)
	got := decodeNotifications(buffer)
	want := []notification{{fileActionAdded, `logs\app.log`}, {fileActionModified, `logs\app.log`},
		{fileActionRenamedNewName, "données.ldf"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestDecodeNotificationsStopsAtADamagedRecord(t *testing.T) {
	good := record(fileActionModified, "a.log", false)
	bad := record(fileActionModified, "b.log", true)
	binary.LittleEndian.PutUint32(bad[8:], 4000) // a name longer than the buffer
	got := decodeNotifications(append(good, bad...))
	if want := []notification{{fileActionModified, "a.log"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got := decodeNotifications(good[:7]); len(got) != 0 {
		t.Fatalf("a buffer shorter than a header gave %+v", got)
	}
	loop := record(fileActionModified, "c.log", false)
	binary.LittleEndian.PutUint32(loop[0:], 0xFFFFFFF0) // an offset past the end ends the list
	if got := decodeNotifications(loop); len(got) != 1 {
		t.Fatalf("got %+v, want the one record", got)
	}
}
