// LISTEN spindle_policy_changed on a dedicated connection (a pooled one would lose the LISTEN
// when returned), reconnecting with backoff when the connection drops. Every notification
// names an organisation whose effective policies must be recomputed; after a reconnect the
// caller recomputes everything, since notifications sent while disconnected are lost.
import pg from "pg";
import { z } from "zod";

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

export interface PolicyChangeListener {
  stop(): Promise<void>;
}

export function listenForPolicyChanges(options: PolicyChangeListenerOptions): PolicyChangeListener {
  const minRetryMs = options.minRetryMs ?? 1000;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  let stopped = false;
  let client: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let failures = 0;
  let connectedBefore = false;

  const scheduleReconnect = () => {
    if (stopped || retryTimer) return;
    const delay = Math.min(maxRetryMs, minRetryMs * 2 ** Math.min(failures, 10));
    failures++;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, delay * (0.5 + Math.random() / 2));
  };

  const connect = async () => {
    const candidate = new pg.Client({ connectionString: options.databaseUrl, application_name: "spindle-worker-listen" });
    let lost = false;
    const onLost = (why: string) => {
      if (lost) return;
      lost = true;
      if (client === candidate) client = null;
      if (!stopped) options.onProblem(`lost the ${policyChangedChannel} listener (${why}); reconnecting`);
      void candidate.end().catch(() => {});
      scheduleReconnect();
    };
    candidate.on("error", (error) => onLost(error.message));
    candidate.on("end", () => onLost("connection closed"));
    candidate.on("notification", (message) => {
      if (message.channel !== policyChangedChannel) return;
      const parsed = payloadSchema.safeParse(safeJson(message.payload));
      if (!parsed.success) {
        options.onProblem(`ignored a ${policyChangedChannel} notification without an orgId: ${message.payload ?? ""}`);
        return;
      }
      options.onOrganizationChanged(parsed.data.orgId);
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${policyChangedChannel}`);
    } catch (error) {
      if (!lost) onLost(error instanceof Error ? error.message : String(error));
      return;
    }
    if (stopped) {
      await candidate.end().catch(() => {});
      return;
    }
    client = candidate;
    failures = 0;
    options.onListening(connectedBefore);
    connectedBefore = true;
  };

  void connect();
  return {
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch {
    return null;
  }
}
