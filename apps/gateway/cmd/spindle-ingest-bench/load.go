package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// loadResult is what the senders measured.
type loadResult struct {
	Batches   int64           // acknowledged with 200
	Refused   map[int]int64   // other statuses (429, 503, …): the batch is sent again, as an agent would
	Latencies []time.Duration // of acknowledged batches, request start to response read
	Seconds   float64
}

// runLoad sends agent-shaped batches from senders goroutines for duration. Each sender owns a
// slice of the agents and sends their batches in turn, the next batch of an agent only after the
// previous one was acknowledged (an agent's spool sends in order).
func runLoad(ctx context.Context, client *http.Client, gateway string, agents []*agent, senders int, duration time.Duration, firstTime time.Time, batches *atomic.Int64) (loadResult, error) {
	ctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	before := batches.Load()
	var (
		mu       sync.Mutex
		refused  = map[int]int64{}
		latency  []time.Duration
		firstErr error
		wg       sync.WaitGroup
	)
	start := time.Now()
	for s := 0; s < senders; s++ {
		var mine []*agent
		for i := s; i < len(agents); i += senders {
			mine = append(mine, agents[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []time.Duration
			localRefused := map[int]int64{}
			defer func() {
				mu.Lock()
				latency = append(latency, local...)
				for code, n := range localRefused {
					refused[code] += n
				}
				mu.Unlock()
			}()
			for i := 0; ctx.Err() == nil && len(mine) > 0; i++ {
				a := mine[i%len(mine)]
				seq := a.Seq + 1
				var err error
				if a.template == nil {
					a.template, err = newTemplate(a.Hostname, seq, firstTime)
				}
				var body []byte
				if err == nil {
					body, err = a.template.render(seq)
				}
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				for ctx.Err() == nil {
					began := time.Now()
					status, err := post(ctx, client, gateway, a.Credential, body)
					if ctx.Err() != nil {
						return // the run ended mid-request: neither counted nor a failure
					}
					if err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						return
					}
					if status == http.StatusOK {
						local = append(local, time.Since(began))
						batches.Add(1)
						a.Seq = seq
						break
					}
					localRefused[status]++
					if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
						mu.Lock()
						firstErr = fmt.Errorf("agent %s batch %d: HTTP %d", a.Hostname, seq, status)
						mu.Unlock()
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	slices.Sort(latency)
	return loadResult{Batches: batches.Load() - before, Refused: refused, Latencies: latency, Seconds: time.Since(start).Seconds()}, firstErr
}

func post(ctx context.Context, client *http.Client, gateway, credential string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, gateway+"/v1/metrics", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+credential)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// percentile of sorted durations, p in [0, 1].
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
