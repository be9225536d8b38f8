package wininstall

import "golang.org/x/sys/windows"

// underWine reports whether this "Windows" is Wine, whose ntdll exports wine_get_version. The
// test suite runs the agent under Wine (no Windows machine is available); Wine 8 keeps no access
// lists on files (it maps them to Unix mode bits, and not these), so there a DACL that does not
// read back is a warning instead of a failed install. On Windows it stays a failure.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
