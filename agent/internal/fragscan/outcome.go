package fragscan

// fileOutcome is what became of one regular file.
type fileOutcome int

const (
	mapped fileOutcome = iota
	unsupported
	unreadable
	skipped // vanished, replaced by something else, or on another file system
)
