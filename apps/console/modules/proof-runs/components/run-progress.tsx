import type { RunSummary } from "../types/proof-run";

/** The run's progress bar: the agent's fraction of planned time, and the phase it is in. */
export function RunProgress({ run }: { run: RunSummary }) {
  const percent = run.progress === null ? null : Math.round(run.progress * 100);
  return (
    <div className="grid gap-1" data-testid="run-progress">
      <div
        role="progressbar"
        aria-label="Proof run progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
        data-progress={run.progress ?? ""}
        className="h-2 w-full overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full bg-primary transition-all" style={{ width: `${percent ?? 0}%` }} />
      </div>
      <p className="text-xs text-muted-foreground" data-testid="run-phase">
        {percent === null ? "waiting for the agent to take the run" : `${percent} % · ${run.phase ?? ""}`}
      </p>
    </div>
  );
}
