// Command spindle-hostmetrics-feed sends this machine's real disk, memory and paging counters
// to an OpenTelemetry Collector's OTLP/HTTP receiver in exactly the shape the hostmetrics
// receiver (contrib v0.162.0) emits them: cumulative Sums since boot, attributes device,
// direction and state. It stands in for the hostmetrics receiver, which the Spindle Collector
// distribution cannot include (infra/otel-collector/README.md), in the Collector-as-a-source
// test (e2e/integration/otel-collector.test.ts).
//
//	spindle-hostmetrics-feed -endpoint http://127.0.0.1:4318 -interval 1s -count 10
//
// It prints one JSON line per scrape sent: its time and the counters of every disk, so a test
// can compute the deltas the gateway must store.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

func main() {
	endpoint := flag.String("endpoint", "http://127.0.0.1:4318", "the Collector's OTLP/HTTP base URL")
	interval := flag.Duration("interval", 10*time.Second, "time between scrapes")
	count := flag.Int("count", 0, "scrapes to send (0: until stopped)")
	proc := flag.String("proc", "/proc", "the proc file system to read")
	flag.Parse()
	if err := run(*endpoint, *interval, *count, *proc); err != nil {
		fmt.Fprintln(os.Stderr, "spindle-hostmetrics-feed:", err)
		os.Exit(1)
	}
}

func run(endpoint string, interval time.Duration, count int, proc string) error {
	boot, err := bootTime(proc)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	url := strings.TrimRight(endpoint, "/") + "/v1/metrics"
	for i := 0; count == 0 || i < count; i++ {
		if i > 0 {
			time.Sleep(interval)
		}
		s, err := scrape(proc, boot, host)
		if err != nil {
			return err
		}
		if err := send(url, otlpfixture.Proto(otlpfixture.BuildHostmetrics(s))); err != nil {
			return err
		}
		line, _ := json.Marshal(struct {
			Time  time.Time              `json:"time"`
			Disks []otlpfixture.HostDisk `json:"disks"`
		}{s.Time, s.Disks})
		fmt.Println(string(line))
	}
	return nil
}

func scrape(proc string, boot time.Time, host string) (otlpfixture.Scrape, error) {
	s := otlpfixture.Scrape{Start: boot, Time: time.Now(), Attributes: map[string]string{"host.name": host}}
	var err error
	if s.Disks, err = disks(proc); err != nil {
		return s, err
	}
	if s.Memory, err = memory(proc); err != nil {
		return s, err
	}
	if s.Swap, err = swaps(proc); err != nil {
		return s, err
	}
	vm, err := vmstat(proc)
	if err != nil {
		return s, err
	}
	s.PageIns, s.PageOuts, s.MajorFaults = vm["pswpin"], vm["pswpout"], vm["pgmajfault"]
	s.MinorFaults = vm["pgfault"] - vm["pgmajfault"]
	return s, nil
}

func send(url string, body []byte) error {
	resp, err := http.Post(url, "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the Collector answered %d: %s", resp.StatusCode, answer)
	}
	return nil
}
