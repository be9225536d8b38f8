// LISTEN on one channel on a dedicated connection (a pooled one would lose the LISTEN when
// returned), reconnecting with backoff when the connection drops. Notifications sent while
// disconnected are lost, so callers catch up in onListening(true).
import pg from "pg";
import type { z } from "zod";

export interface ChannelListenerOptions<T> {
  databaseUrl: string;
  channel: string;
  /** Validates each payload (JSON); a payload that fails is reported and ignored. */
  payloadSchema: z.ZodType<T>;
  onMessage: (message: T) => void;
  /** Called after every (re)connection, the first included. */
  onListening: (reconnected: boolean) => void;
  onProblem: (message: string) => void;
  /** Backoff bounds in ms (tests shorten them). */
  minRetryMs?: number;
  maxRetryMs?: number;
}

export interface ChannelListener {
  stop(): Promise<void>;
}

export function listenOnChannel<T>(options: ChannelListenerOptions<T>): ChannelListener {
  const { channel } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
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
    retryTimer = setTimeout(
      () => {
        retryTimer = null;
        void connect();
      },
      delay * (0.5 + Math.random() / 2),
    );
  };

  const connect = async () => {
    const candidate = new pg.Client({ connectionString: options.databaseUrl, application_name: "spindle-worker-listen" });
    let lost = false;
    const onLost = (why: string) => {
      if (lost) return;
      lost = true;
      if (client === candidate) client = null;
      if (!stopped) options.onProblem(`lost the ${channel} listener (${why}); reconnecting`);
      void candidate.end().catch(() => {});
      scheduleReconnect();
    };
    candidate.on("error", (error) => onLost(error.message));
    candidate.on("end", () => onLost("connection closed"));
    candidate.on("notification", (message) => {
      if (message.channel !== channel) return;
      const parsed = options.payloadSchema.safeParse(safeJson(message.payload));
      if (!parsed.success) {
        options.onProblem(`ignored a ${channel} notification that does not match its schema: ${message.payload ?? ""}`);
        return;
      }
      options.onMessage(parsed.data);
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${channel}`);
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
