"use client";
import { AlertTriangle } from "lucide-react";
import { Skeleton } from "@/components/ui/skeleton";
import { usePolling } from "@/lib/use-polling";
import { answers, selectionQuery, type WindowSelection } from "@/modules/metrics/lib/window-selection";
import type { DeepTelemetry } from "../types/deep-telemetry";
import { CacheHitPanel } from "./cache-hit-panel";
import { CapabilitiesPanel } from "./capabilities-panel";
import { DatabasePanel } from "./database-panel";
import { FragmentationPanel } from "./fragmentation-panel";
import { LatencyPanel } from "./latency-panel";
import { SplitIoPanel } from "./split-io-panel";

/** The deep Linux telemetry of one server for the picked window; refreshes with the charts above. */
export function DeepTelemetryPanels({ serverId, selection }: { serverId: string; selection: WindowSelection }) {
  const { data, error, loading } = usePolling<DeepTelemetry>(`/api/servers/${serverId}/deep-telemetry?${selectionQuery(selection)}`);
  const deep = answers(data, selection) ? data : undefined;
  if (!deep) {
    if (error) {
      return (
        <p className="flex items-center gap-2 text-sm text-destructive" role="alert" data-testid="deep-telemetry-error">
          <AlertTriangle className="size-4" aria-hidden /> Could not load the storage panels: {error}
        </p>
      );
    }
    return (
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2" aria-busy="true" aria-label="Loading storage panels">
        {Array.from({ length: 4 }, (_, index) => (
          <Skeleton key={index} className="h-48" />
        ))}
      </div>
    );
  }
  return (
    <div className={`grid gap-6 ${loading ? "opacity-60 transition-opacity" : "transition-opacity"}`} data-testid="deep-telemetry">
      <CapabilitiesPanel capabilities={deep.capabilities} />
      <LatencyPanel deep={deep} />
      <div className="grid grid-cols-1 gap-6 xl:grid-cols-2">
        <SplitIoPanel deep={deep} />
        <CacheHitPanel deep={deep} />
      </div>
      <DatabasePanel deep={deep} />
      <FragmentationPanel deep={deep} />
    </div>
  );
}
