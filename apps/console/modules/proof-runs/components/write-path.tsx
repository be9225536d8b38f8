import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { fragmentsPrevented } from "../lib/report-view";
import type { ProofRunReport } from "../types/proof-run";
import { ChangeText } from "./change-text";

/** The log file's fragments with and without write optimisation: a percentage only with an interval that excludes 0. */
export function WritePathCard({ report }: { report: ProofRunReport }) {
  const writePath = report.writePath;
  if (!writePath) return null;
  const prevented = fragmentsPrevented(report);
  return (
    <Card data-testid="write-path">
      <CardHeader>
        <CardTitle>Write path: log file fragments</CardTitle>
        <CardDescription>{writePath.basis}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-1 text-sm">
        <p>
          Extents per log file without: {writePath.extentsOff?.join(", ") || "not measured"} · with:{" "}
          {writePath.extentsOn?.join(", ") || "not measured"}
          {writePath.extentsWarmUp?.length ? ` · warm-up (not compared): ${writePath.extentsWarmUp.join(", ")}` : ""}
        </p>
        <p className="flex flex-wrap items-baseline gap-2">
          Fragments prevented: <ChangeText difference={prevented} className="items-start" />
        </p>
        {prevented.status !== "measured" && prevented.reason ? (
          <p className="text-muted-foreground" data-testid="write-path-reason">
            {prevented.reason}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
