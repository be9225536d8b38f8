package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// The HTTP floor: what the same senders cost against a server that only reads each request's body
// and answers success, run as a process of its own so its CPU is read like the gateway's. With
// the raw COPY's CPU per batch it bounds what any gateway could reach on this machine: the
// exchange and the rows' COPY are both unavoidable, and both run on the same cores.

// floorServeFlag makes the binary the floor server (it prints its address, then serves).
const floorServeFlag = "-serve-http-floor"

// serveHTTPFloor is the floor server: read the body into a buffer of its Content-Length, as the
// gateway does, and answer 200 with an empty ExportMetricsServiceResponse (zero bytes in
// protobuf).
func serveHTTPFloor() error {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(listener.Addr().String())
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, max(r.ContentLength, 0))
		if _, err := io.ReadFull(r.Body, body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	})
	return http.Serve(listener, handler)
}

// floorResult is the CPU per exchange of the floor server and of the senders.
type floorResult struct {
	ExchangesPerSecond   float64
	ServerMs, SendersMs  float64 // CPU per exchange
	ServerPct, SenderPct float64 // share of one core
}

// measureHTTPFloor starts the floor server and runs the benchmark's senders against it.
func measureHTTPFloor(ctx context.Context, client *http.Client, agents []*agent, senders int, duration time.Duration, firstTime time.Time) (floorResult, error) {
	self, err := os.Executable()
	if err != nil {
		return floorResult{}, err
	}
	server := exec.CommandContext(ctx, self, floorServeFlag)
	server.Stderr = os.Stderr
	stdout, err := server.StdoutPipe()
	if err != nil {
		return floorResult{}, err
	}
	if err := server.Start(); err != nil {
		return floorResult{}, fmt.Errorf("start the HTTP floor server: %w", err)
	}
	defer func() { _ = server.Process.Kill(); _ = server.Wait() }()
	address, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return floorResult{}, fmt.Errorf("the HTTP floor server did not say its address: %w", err)
	}
	url := "http://" + address[:len(address)-1]

	// Sequence numbers go on from where the measured run left them: the floor server does not
	// care, and the agents' state stays the gateway's.
	saved := make([]int64, len(agents))
	for i, a := range agents {
		saved[i] = a.Seq
	}
	defer func() {
		for i, a := range agents {
			a.Seq = saved[i]
		}
	}()
	var exchanges atomic.Int64
	if _, err := runLoad(ctx, client, url, agents, senders, min(duration/3, 5*time.Second), firstTime, &exchanges); err != nil {
		return floorResult{}, fmt.Errorf("HTTP floor warm-up: %w", err)
	}
	serverCPU, err := startCPU(server.Process.Pid, false)
	if err != nil {
		return floorResult{}, err
	}
	sendersCPU, err := startCPU(os.Getpid(), false)
	if err != nil {
		return floorResult{}, err
	}
	load, err := runLoad(ctx, client, url, agents, senders, duration, firstTime, &exchanges)
	if err != nil {
		return floorResult{}, fmt.Errorf("HTTP floor: %w", err)
	}
	perSecond := float64(load.Batches) / load.Seconds
	serverPct, senderPct := serverCPU.percentOfCore(load.Seconds), sendersCPU.percentOfCore(load.Seconds)
	return floorResult{
		ExchangesPerSecond: perSecond,
		ServerPct:          serverPct, SenderPct: senderPct,
		ServerMs: serverPct / 100 / perSecond * 1000, SendersMs: senderPct / 100 / perSecond * 1000,
	}, nil
}

// printCeiling states the most any gateway could acknowledge on this machine with the
// benchmark's senders on it: every batch costs at least the floor's exchange (server and
// senders) and the raw COPY's CPU for its rows (database and COPY client), on runtime.NumCPU()
// cores. Waits (WAL flushes, scheduling) only lower it.
// serverMsPerBatch (gateway and PostgreSQL in the measured run, negative when not measured) is
// compared with the least a server side could spend: the floor server's exchange and raw COPY.
func printCeiling(floor floorResult, rawMsPerBatch, rawBatchesPerSecond, serverMsPerBatch float64) {
	cores := float64(runtime.NumCPU())
	perBatch := floor.ServerMs + floor.SendersMs + rawMsPerBatch
	ceiling := cores / perBatch * 1000
	fmt.Printf("\nHTTP floor (a server that reads each body and answers 200; the same senders), %s cores\n", strconv.Itoa(runtime.NumCPU()))
	fmt.Printf("  exchanges/s             %10.0f\n", floor.ExchangesPerSecond)
	fmt.Printf("  floor server CPU        %10s of a core, %.3f ms per exchange\n", cpuText(floor.ServerPct), floor.ServerMs)
	fmt.Printf("  senders CPU             %10s of a core, %.3f ms per exchange\n", cpuText(floor.SenderPct), floor.SendersMs)
	fmt.Printf("  ceiling on this machine %10.0f batches/s = %.0f cores ÷ (%.3f + %.3f + %.3f ms raw COPY per batch)\n",
		ceiling, cores, floor.ServerMs, floor.SendersMs, rawMsPerBatch)
	fmt.Printf("  ceiling ratio ÷ raw COPY %9.3f (no gateway or database work beyond the exchange and the rows' COPY)\n", ceiling/rawBatchesPerSecond)
	withoutSenders := cores / (floor.ServerMs + rawMsPerBatch) * 1000
	fmt.Printf("  the same without the senders' CPU (agents elsewhere): %.0f batches/s, ratio %.3f\n", withoutSenders, withoutSenders/rawBatchesPerSecond)
	if serverMsPerBatch > 0 {
		fmt.Printf("  server side per batch   %10.3f ms (gateway + PostgreSQL, measured run) against %.3f ms (floor exchange + raw COPY): %.2f of the least possible\n",
			serverMsPerBatch, floor.ServerMs+rawMsPerBatch, (floor.ServerMs+rawMsPerBatch)/serverMsPerBatch)
	}
}
