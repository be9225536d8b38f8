// "Upgrade available" for one server: the newest release served, when it is newer than what the
// server runs and the server is not pinned. A pinned server is held at its pin (rollouts leave it
// out and the gateway offers it the pinned version only), so offering it the newest would be wrong.
import { compareAgentVersions } from "@spindle/domain";

export function upgradeAvailable(agentVersion: string, latestVersion: string | null, pinnedVersion: string | null): string | null {
  if (pinnedVersion !== null || latestVersion === null) return null;
  return compareAgentVersions(agentVersion, latestVersion) < 0 ? latestVersion : null;
}
