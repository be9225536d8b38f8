package hostinfo

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// kernelRelease is the NT version and build, e.g. "10.0.20348".
func kernelRelease() string {
	v := windows.RtlGetVersion()
	return fmt.Sprintf("%d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber)
}

func platformName() string { return "Windows " + kernelRelease() }
