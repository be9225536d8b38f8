// The real console (its server, apps/console/dist/server.js, on the build `turbo run build` made) for integration tests that
// act as a signed-in user through its API, and a session that signs up over HTTP the way the
// sign-up form does (better-auth's sign-up, then the organisation), keeping the session cookie.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Child } from "./child";
import { repoRoot } from "./gateway";

export class ConsoleProcess {
  private child?: Child;
  output = "";

  constructor(
    readonly port: number,
    private readonly databaseUrl: string,
    private readonly gatewayUrl: string,
    private readonly extraEnv: Record<string, string> = {},
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const cwd = join(repoRoot, "apps/console");
    if (!existsSync(join(cwd, ".next/BUILD_ID")) || !existsSync(join(cwd, "dist/server.js"))) {
      throw new Error("the console is not built: run npx turbo run build --filter=@spindle/console");
    }
    this.child = new Child(
      process.execPath,
      ["dist/server.js", "-H", "127.0.0.1", "-p", String(this.port)],
      {
        cwd,
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: this.databaseUrl,
          SPINDLE_CONSOLE_URL: this.url,
          SPINDLE_GATEWAY_URL: this.gatewayUrl,
          BETTER_AUTH_SECRET: "integration-secret-that-is-long-enough-for-better-auth",
          SPINDLE_MAILBOX_DIR: mkdtempSync(join(tmpdir(), "spindle-console-mailbox-")),
          ...this.extraEnv,
        },
      },
      (chunk) => (this.output += chunk),
    );
    for (let i = 0; i < 600; i++) {
      try {
        if ((await fetch(`${this.url}/api/healthz`)).status < 500) return;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the console did not start:\n${this.output}`);
  }

  async stop(): Promise<void> {
    await this.child?.stop();
  }
}

/** A person signed in to the console: every request carries their session cookie and the console's Origin. */
export class ConsoleSession {
  private cookie = "";

  constructor(private readonly consoleUrl: string) {}

  /** Signs up and creates the organisation the person then works in (owner). */
  async signUp(name: string, email: string, password: string, organisation: string): Promise<void> {
    // This console has no mail server: its first account is verified at sign-up (the operator's),
    // so signing in right after works without a confirmation link.
    await this.request("POST", "/api/auth/sign-up/email", { name, email, password });
    await this.request("POST", "/api/auth/sign-in/email", { email, password });
    const slug = organisation
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
    await this.request("POST", "/api/auth/organization/create", { name: organisation, slug });
  }

  async get<T>(path: string): Promise<T> {
    return this.request<T>("GET", path);
  }

  async post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.request<T>("POST", path, body);
  }

  async put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>("PUT", path, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.consoleUrl}${path}`, {
      method,
      headers: {
        origin: this.consoleUrl,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const cookies = response.headers
      .getSetCookie()
      .map((c) => c.split(";")[0]!)
      .filter((c) => !c.endsWith("="));
    if (cookies.length > 0) {
      const jar = new Map(
        this.cookie
          .split("; ")
          .filter(Boolean)
          .map((c) => [c.split("=")[0]!, c] as const),
      );
      for (const c of cookies) jar.set(c.split("=")[0]!, c);
      this.cookie = [...jar.values()].join("; ");
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
