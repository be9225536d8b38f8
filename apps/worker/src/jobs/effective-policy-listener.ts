// LISTEN spindle_policy_changed: every notification names an organisation whose effective
// policies must be recomputed; after a reconnect the caller recomputes everything, since
// notifications sent while disconnected are lost.
import { z } from "zod";
import { listenOnChannel, type ChannelListener } from "./pg-listener.js";

export const policyChangedChannel = "spindle_policy_changed";

const payloadSchema = z.object({ orgId: z.string().min(1) });

export interface PolicyChangeListenerOptions {
  databaseUrl: string;
  onOrganizationChanged: (orgId: string) => void;
  /** Called after every (re)connection, the first included. */
  onListening: (reconnected: boolean) => void;
  onProblem: (message: string) => void;
  /** Backoff bounds in ms (tests shorten them). */
  minRetryMs?: number;
  maxRetryMs?: number;
}

export type PolicyChangeListener = ChannelListener;

export function listenForPolicyChanges(options: PolicyChangeListenerOptions): PolicyChangeListener {
  const { onOrganizationChanged, ...rest } = options;
  return listenOnChannel({
    ...rest,
    channel: policyChangedChannel,
    payloadSchema,
    onMessage: (message) => onOrganizationChanged(message.orgId),
  });
}
