import Link from "next/link";
import type { ChangeOutcome } from "../types/rollout";

/** Said where a change was made when it started a rollout: where to follow it. */
export function RolloutStarted({ outcome }: { outcome: ChangeOutcome | null }) {
  if (outcome?.mode !== "rollout") return null;
  return (
    <p className="rounded-md border border-primary/30 bg-primary/5 p-3 text-sm" role="status" data-testid="rollout-started">
      The change goes out as a rollout: {outcome.servers} server{outcome.servers === 1 ? "" : "s"} in {outcome.waves} wave
      {outcome.waves === 1 ? "" : "s"}.{" "}
      <Link className="font-medium underline" href={`/rollouts/${outcome.rolloutId}`} data-testid="rollout-started-link">
        Follow the rollout
      </Link>
    </p>
  );
}
