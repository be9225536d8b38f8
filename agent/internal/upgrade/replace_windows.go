package upgrade

import (
	"errors"

	"golang.org/x/sys/windows"
)

// transientReplaceError: another process holds the file open for a moment.
func transientReplaceError(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
