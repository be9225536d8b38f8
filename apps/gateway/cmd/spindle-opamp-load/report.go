package main

import (
	"fmt"
	"time"
)

func report(o options, connected int, rssBefore, rssAfter int64, idle idleResult, changes []changeResult, ingest ingestResult) {
	fmt.Printf("agents connected (WebSocket)        %d (heartbeat every %s)\n", connected, o.heartbeat)
	if rssBefore > 0 && rssAfter > 0 && connected > 0 {
		fmt.Printf("gateway RSS                         %.1f MiB before, %.1f MiB connected: %.1f KiB per connection\n",
			mib(rssBefore), mib(rssAfter), float64(rssAfter-rssBefore)/1024/float64(connected))
	} else {
		fmt.Println("gateway RSS                         not measured (pass -gateway-pid)")
	}
	fmt.Printf("database at idle heartbeat (%s)    %.1f commits/s, %.1f rows updated/s", idle.window, idle.commitsPerSecond, idle.rowsUpdatedPerSecond)
	if idle.statementsPerSecond >= 0 {
		fmt.Printf(", %.1f statements/s", idle.statementsPerSecond)
	}
	fmt.Printf(" (includes the ingest load: %d servers every %s)\n", o.ingestAgents, o.ingestInterval)
	for i, c := range changes {
		fmt.Printf("policy change %d → APPLIED            %d servers: received by the gateway (applied_at) p50 %s, p99 %s, max %s; "+
			"visible in the database (%s) p50 %s, p99 %s, all %s\n",
			i+1, c.n, ms(c.p50), ms(c.p99), ms(c.max), c.visibleBasis, ms(c.visible50), ms(c.visible99), ms(c.visibleAll))
		fmt.Printf("  CPU from the save until all visible  gateway %s, database %s, simulated agents (this tool) %s\n",
			seconds(c.gatewayCPU), seconds(c.databaseCPU), seconds(c.agentsCPU))
	}
	fmt.Printf("ingest meanwhile                    %d batches acknowledged, %d refused or failed; latency p50 %s, p99 %s\n",
		ingest.acked, ingest.refused, ms(ingest.p50), ms(ingest.p99))
}

func seconds(s float64) string {
	if s < 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.2f s", s)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
