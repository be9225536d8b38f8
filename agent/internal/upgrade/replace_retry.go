package upgrade

import "time"

// replaceRetry bounds how long a replacement of a file the agent and its watchdog share is retried.
// On Windows a rename over a file fails while another process has it open without delete
// sharing (the watchdog reads state.json every WatchPoll; Go opens files without it, and so do
// indexers and antivirus); such a moment passes in milliseconds.
const replaceRetry = 10 * time.Second

// retryWhile runs write until it succeeds, fails for a reason transient does not accept, or the
// bound passes; the last error is returned.
func retryWhile(write func() error, transient func(error) bool, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	delay := 10 * time.Millisecond
	for {
		err := write()
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
		delay = min(delay*2, 250*time.Millisecond)
	}
}
