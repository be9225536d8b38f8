// A download mirror in front of the gateway that can tamper with a release in transit, as an
// attacker on the path (or a compromised mirror) would: the gateway's SPINDLE_PUBLIC_URL points
// here, so the agents' downloads, enrolment and OpAMP (WebSocket included) come through it; only
// the release downloads are altered, everything else passes untouched.
//   binary:          one byte of the binary changed (the sums left as they are);
//   binary-and-sums: the same altered binary, and SHA256SUMS rewritten to list its hash, so only
//                    the gateway's signature over SHA256SUMS can tell.
import { createHash } from "node:crypto";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";

export type Tampering = "none" | "binary" | "binary-and-sums";

const binaryPath = /^\/download\/[^/]+\/spindle-agent-linux-[a-z0-9]+$/;
const sumsPath = /^\/download\/[^/]+\/SHA256SUMS$/;

/** One byte changed near the end of the binary. */
function alter(body: Buffer): Buffer {
  const altered = Buffer.from(body);
  altered[altered.length - 100] = altered[altered.length - 100]! ^ 0xff;
  return altered;
}

export class TamperingMirror {
  mode: Tampering = "none";
  /** The paths asked for, in order. */
  readonly requests: string[] = [];
  private server?: Server;

  constructor(
    readonly port: number,
    private readonly upstream: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? "/";
      this.requests.push(path);
      if (req.method !== "GET" || !(binaryPath.test(path) || sumsPath.test(path))) return this.pass(req, res);
      this.answer(path, req.method)
        .then(({ status, type, body }) => res.writeHead(status, { "content-type": type }).end(body))
        .catch((error: unknown) => res.writeHead(502).end(String(error)));
    });
    // WebSocket upgrades (OpAMP): the request head replayed to the gateway, then bytes both ways.
    this.server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      const target = new URL(this.upstream);
      const upstream = connect(Number(target.port), target.hostname, () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
        upstream.write(head);
        upstream.pipe(socket).pipe(upstream);
      });
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
  }

  /** Anything but a release download: streamed to the gateway and back as it is. */
  private pass(req: IncomingMessage, res: ServerResponse): void {
    const target = new URL(req.url ?? "/", this.upstream);
    const forward = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", (error) => res.writeHead(502).end(String(error)));
    req.pipe(forward);
  }

  private async fetch(path: string, method = "GET"): Promise<{ status: number; type: string; body: Buffer }> {
    const answer = await fetch(`${this.upstream}${path}`, { method });
    return {
      status: answer.status,
      type: answer.headers.get("content-type") ?? "application/octet-stream",
      body: Buffer.from(await answer.arrayBuffer()),
    };
  }

  private async answer(path: string, method: string): Promise<{ status: number; type: string; body: Buffer }> {
    const upstream = await this.fetch(path, method);
    if (upstream.status !== 200 || this.mode === "none") return upstream;
    if (binaryPath.test(path)) return { ...upstream, body: alter(upstream.body) };
    if (this.mode === "binary-and-sums" && sumsPath.test(path)) {
      const text = upstream.body.toString("utf8");
      const lines = await Promise.all(
        text.split("\n").map(async (line) => {
          const match = /^([0-9a-f]{64}) {2}(spindle-agent-linux-[a-z0-9]+)$/.exec(line);
          if (!match) return line;
          const binary = await this.fetch(path.replace(/SHA256SUMS$/, match[2]!));
          return `${createHash("sha256").update(alter(binary.body)).digest("hex")}  ${match[2]}`;
        }),
      );
      return { ...upstream, body: Buffer.from(lines.join("\n")) };
    }
    return upstream;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
