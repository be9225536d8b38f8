// Keeps server_effective_policies current: a recompute of every organisation at start, then one
// per organisation named on spindle_policy_changed, and everything again after the listener
// reconnects (what was announced meanwhile is lost). The crontab adds a sweep every 5 minutes.
import type { Runner } from "graphile-worker";
import { listenForPolicyChanges } from "./jobs/effective-policy-listener.js";
import { effectivePoliciesJobSpec, effectivePoliciesTask } from "./jobs/effective-policy-task.js";

/** Returns a function that stops listening. */
export function startEffectivePolicyDelivery(runner: Runner, databaseUrl: string): () => Promise<void> {
  const queue = (orgId: string | null) =>
    runner
      .addJob(effectivePoliciesTask, orgId === null ? {} : { orgId }, effectivePoliciesJobSpec(orgId))
      .catch((error: Error) => console.error(`could not queue an effective-policy recompute: ${error.message}`));

  const listener = listenForPolicyChanges({
    databaseUrl,
    onOrganizationChanged: (orgId) => void queue(orgId),
    onListening: (reconnected) => {
      if (reconnected) console.log("listening on spindle_policy_changed again; recomputing every effective policy");
      void queue(null);
    },
    onProblem: (message) => console.error(message),
  });
  return () => listener.stop();
}
