"use client";
import { AlertTriangle } from "lucide-react";
import { Skeleton } from "@/components/ui/skeleton";
import { formatBytes, formatNumber } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import { Panel } from "@/modules/deep-telemetry/components/panel";
import { whyEmpty } from "@/modules/deep-telemetry/components/why-empty";
import type { Capabilities } from "@/modules/deep-telemetry/types/deep-telemetry";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import { answers, selectionQuery, type WindowSelection } from "@/modules/metrics/lib/window-selection";
import { buildFamilyPanel } from "../lib/build-family-panel";
import { familyPanels, type FamilyPanel } from "../panels";
import type { FamilySeries } from "../types/family-series";

const formats = { bytes: formatBytes, count: formatNumber } as const;

function FamilyPanelView({
  panel,
  serverId,
  selection,
  capabilities,
}: {
  panel: FamilyPanel;
  serverId: string;
  selection: WindowSelection;
  capabilities: Capabilities;
}) {
  const tables = [...new Set(panel.lines.map((line) => line.family))].join(",");
  const url = `/api/servers/${serverId}/families?tables=${tables}&${selectionQuery(selection)}`;
  const { data, error } = usePolling<{ range: string; from: string; families: FamilySeries[] }>(url);
  if (error && !data) {
    return (
      <p className="flex items-center gap-2 text-sm text-destructive" role="alert">
        <AlertTriangle className="size-4" aria-hidden /> Could not load {panel.title.toLowerCase()}: {error}
      </p>
    );
  }
  if (!data || !answers(data, selection)) return <Skeleton className="h-48" />;
  const built = buildFamilyPanel(panel, data.families);
  const format = formats[panel.unit];
  const total = (value: number | null) => (value === null ? "not measured" : format(value));
  return (
    <Panel
      testId={`panel-${panel.id}`}
      title={panel.title}
      description={panel.description}
      empty={built.empty ? whyEmpty(capabilities, panel.capability, panel.idle) : null}
    >
      <p className="mb-1 text-sm" data-testid={`panel-${panel.id}-totals`}>
        {[
          ...built.totals.map((t) => `${t.label}: ${total(t.total)}`),
          ...(built.difference ? [`${built.difference.label}: ${total(built.difference.value)}`] : []),
        ].join(" · ")}
      </p>
      <p className="mb-3 text-xs text-muted-foreground">{panel.basis} Totals over the window.</p>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        {built.charts.map((chart) => (
          <UPlotChart
            key={chart.key}
            title={chart.key ? chart.key : panel.title}
            unit={panel.unit === "bytes" ? "/s" : "per s"}
            time={chart.time}
            format={format}
            testId={{ chart: panel.id, ...(chart.key ? { device: chart.key } : {}) }}
            series={chart.lines}
          />
        ))}
      </div>
    </Panel>
  );
}

/** Every panel declared in panels.ts, for the picked window; refreshes with the charts above. */
export function FamilyPanels({
  serverId,
  selection,
  capabilities,
}: {
  serverId: string;
  selection: WindowSelection;
  capabilities: Capabilities;
}) {
  return (
    <>
      {familyPanels.map((panel) => (
        <FamilyPanelView key={panel.id} panel={panel} serverId={serverId} selection={selection} capabilities={capabilities} />
      ))}
    </>
  );
}
