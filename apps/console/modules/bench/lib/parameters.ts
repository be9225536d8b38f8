import { agentParameters, type AgentParameters, type StartRunInput } from "../types/bench";

const MiB = 1024 * 1024;

/**
 * The form's request as the agent's bench.Request (less its profile): always an A/B run (a
 * warm-up pass, then off/on/on/off blocks until the target interval or the time limit) with
 * buffered I/O, since the read cache works on the page cache.
 */
export function toAgentParameters(input: StartRunInput): AgentParameters {
  return agentParameters.parse({
    paths: input.logPath ? [input.dataPath, input.logPath] : [input.dataPath],
    sizeLimitBytes: input.sizeLimitMiB * MiB,
    timeLimitSeconds: input.timeLimitSeconds,
    stepSeconds: input.stepSeconds,
    latencyLimitSeconds: input.latencyLimitMs / 1000,
    targetHalfWidthPercent: input.targetHalfWidthPercent,
    ab: true,
    directIO: false,
    ...(input.loads.length > 0 ? { loads: input.loads } : {}),
  });
}
