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
	"sync/atomic"
	"time"
)

// The HTTP floor: what the same senders cost against a server that only reads each request's body
// and answers success, run as a process of its own so its CPU is read like the gateway's. With
// the raw COPY's CPU per batch it bounds what any gateway could reach here: the exchange and the
// rows' COPY are both unavoidable, and both run on the same cores.

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

// printCeiling compares CPU per batch, which a shared host's load moves far less than
// batches/s: were the load and raw COPY both bound by the same cores, end to end could reach at
// most raw ÷ (raw + exchange) of raw COPY, since every batch costs at least the floor's exchange
// (server, and the senders when they share the machine) and the raw COPY of its rows (database
// and COPY client). measuredMs is the measured run's gateway + PostgreSQL + senders per batch
// (negative when not measured).
func printCeiling(floor floorResult, rawMs, measuredMs float64) {
	fmt.Printf("\nHTTP floor (the same senders against a server that reads each body and answers 200)\n")
	fmt.Printf("  exchanges/s             %10.0f\n", floor.ExchangesPerSecond)
	fmt.Printf("  floor server CPU        %10s of a core, %.3f ms per exchange\n", cpuText(floor.ServerPct), floor.ServerMs)
	fmt.Printf("  senders CPU             %10s of a core, %.3f ms per exchange\n", cpuText(floor.SenderPct), floor.SendersMs)
	fmt.Printf("\nCPU per batch (ms): raw COPY %.3f; exchange %.3f (server) + %.3f (senders)\n", rawMs, floor.ServerMs, floor.SendersMs)
	fmt.Printf("  ceiling ratio, CPU-bound, senders on this machine  %.3f = %.3f ÷ (%.3f + %.3f + %.3f)\n",
		rawMs/(rawMs+floor.ServerMs+floor.SendersMs), rawMs, rawMs, floor.ServerMs, floor.SendersMs)
	fmt.Printf("  ceiling ratio, CPU-bound, senders elsewhere        %.3f = %.3f ÷ (%.3f + %.3f)\n",
		rawMs/(rawMs+floor.ServerMs), rawMs, rawMs, floor.ServerMs)
	if measuredMs > 0 {
		fmt.Printf("  this run, CPU-bound                                %.3f = %.3f ÷ %.3f (gateway + PostgreSQL + senders)\n", rawMs/measuredMs, rawMs, measuredMs)
	}
}
