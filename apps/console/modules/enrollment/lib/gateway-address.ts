/**
 * What the gateway's public address means for the install commands: whether agents reach it
 * over plain http, and whether it names only the machine it runs on. Both decide what the
 * commands must carry (--allow-http) and what the page says before anyone copies them.
 */
export interface GatewayAddress {
  /** The URL without a trailing slash, as the commands use it. */
  url: string;
  host: string;
  /** http://, not https://: the token, the credential and telemetry travel unencrypted. */
  plainHttp: boolean;
  /** localhost, 127.0.0.0/8 or [::1]: only the gateway's own machine reaches it. */
  loopbackOnly: boolean;
}

export function describeGatewayAddress(gatewayUrl: string): GatewayAddress {
  const url = gatewayUrl.replace(/\/+$/, "");
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const loopbackOnly = host === "localhost" || host.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(host) || host === "::1";
  return { url, host, plainHttp: parsed.protocol === "http:", loopbackOnly };
}

/**
 * Whether the installers must be told to accept plain http: install.sh (and the Windows agent's
 * `install`) accept http:// on their own only when the gateway is on the same host, which a
 * loopback literal guarantees and a name does not (it may resolve to loopback on the gateway's
 * machine and to a LAN address everywhere else).
 */
export function needsAllowHttp(gateway: GatewayAddress): boolean {
  return gateway.plainHttp && !gateway.loopbackOnly;
}

export type InstallPlatform = "linux" | "windows";

export interface InstallNote {
  id: "plain-http" | "loopback-only";
  /** warning: the command works but the user should know this first; blocker: it cannot work elsewhere. */
  level: "warning" | "blocker";
  title: string;
  text: string;
}

/** What the page says above the command, before it is copied. */
export function installNotes(gateway: GatewayAddress, platform: InstallPlatform): InstallNote[] {
  const notes: InstallNote[] = [];
  if (gateway.loopbackOnly) {
    notes.push({
      id: "loopback-only",
      level: "blocker",
      title: "This command works only on the gateway's own machine",
      text:
        `${gateway.url} is a loopback address: on any other ${platform === "windows" ? "Windows server" : "server"} it names that server itself, ` +
        "where no gateway listens, and the download fails. To enrol other servers, give the gateway an address they can reach " +
        "(SPINDLE_PUBLIC_GATEWAY_URL for npm start, SPINDLE_GATEWAY_URL for the console; docs/configure.md).",
    });
  }
  if (gateway.plainHttp && !gateway.loopbackOnly) {
    notes.push({
      id: "plain-http",
      level: "warning",
      title: "This gateway uses plain http, not https",
      text:
        `${gateway.url} is not encrypted: the enrolment token in this command, the credential the server receives for it and ` +
        "all its telemetry cross the network readable by anyone on the path, who could also use the token to enrol servers of their own " +
        "until it expires or you revoke it. The command therefore carries --allow-http, without which the installer refuses a plain-http gateway " +
        "on another host. " +
        (platform === "linux" ? "The agent binary is still checked against SHA256SUMS signed by the gateway's key. " : "") +
        "On a network you do not trust, give the gateway an https:// address (docs/configure.md) and create a new command.",
    });
  }
  return notes;
}
