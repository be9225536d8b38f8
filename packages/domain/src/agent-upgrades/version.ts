// Agent versions are semantic versions (major.minor.patch with an optional pre-release, as
// agent/build-dist.sh stamps them). The gateways serve releases by version; the console decides
// "upgrade available" and the order of releases with compareAgentVersions.

const versionPattern = /^(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:-([0-9A-Za-z.-]{1,64}))?$/;

export interface AgentVersion {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated pre-release identifiers ("dev", "rc.1"); empty for a release. */
  prerelease: string[];
}

export function parseAgentVersion(text: string): AgentVersion | null {
  const match = versionPattern.exec(text);
  if (!match) return null;
  const prerelease = match[4] ? match[4].split(".") : [];
  if (prerelease.some((part) => part === "")) return null;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), prerelease };
}

export function isAgentVersion(text: string): boolean {
  return parseAgentVersion(text) !== null;
}

function compareIdentifiers(a: string, b: string): number {
  const numericA = /^\d+$/.test(a);
  const numericB = /^\d+$/.test(b);
  if (numericA && numericB) return Math.sign(Number(a) - Number(b));
  if (numericA) return -1; // numeric identifiers sort before alphanumeric ones (semver 11.4.3)
  if (numericB) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Semantic-version precedence: negative when a is older than b. A pre-release is older than its
 * release (0.1.0-dev < 0.1.0). Text that is not a version sorts before every version, so an
 * agent that reports no version is always "older".
 */
export function compareAgentVersions(a: string, b: string): number {
  const va = parseAgentVersion(a);
  const vb = parseAgentVersion(b);
  if (!va || !vb) return va ? 1 : vb ? -1 : 0;
  for (const key of ["major", "minor", "patch"] as const) {
    if (va[key] !== vb[key]) return Math.sign(va[key] - vb[key]);
  }
  if (va.prerelease.length === 0 || vb.prerelease.length === 0) {
    return va.prerelease.length === vb.prerelease.length ? 0 : va.prerelease.length === 0 ? 1 : -1;
  }
  for (let i = 0; i < Math.min(va.prerelease.length, vb.prerelease.length); i++) {
    const order = compareIdentifiers(va.prerelease[i]!, vb.prerelease[i]!);
    if (order !== 0) return order;
  }
  return Math.sign(va.prerelease.length - vb.prerelease.length);
}

/** The newest of the versions (null for none); versions that do not parse are ignored. */
export function newestAgentVersion(versions: readonly string[]): string | null {
  let newest: string | null = null;
  for (const version of versions) {
    if (!isAgentVersion(version)) continue;
    if (newest === null || compareAgentVersions(version, newest) > 0) newest = version;
  }
  return newest;
}
