// The verdict's calibration table for docs/gains.md: every configuration of
// src/simulation/verdict-configurations.ts with many replications, printed as Markdown.
//   node --import tsx scripts/simulate-verdicts.ts [replications] [configuration…]
import { formatResults, runNulls, runPower, verdictConfigurations } from "../src/index.js";

const replications = Number(process.argv[2] ?? 2000);
const chosen = process.argv.slice(3);
for (const [key, configuration] of Object.entries(verdictConfigurations)) {
  if (chosen.length > 0 && !chosen.includes(key)) continue;
  const started = process.cpuUsage();
  const options = { ...configuration, replications, powerReplications: Math.ceil(replications / 4), seed: 20261128, effects: [0.9, 0.7] };
  const table = formatResults(runNulls(options), runPower(options));
  const used = process.cpuUsage(started);
  console.log(
    `### ${configuration.name}\n\n${replications} replications per null scenario, ${options.powerReplications} per effect; looks at ${configuration.looksMinutes.join(", ")} minutes; ${((used.user + used.system) / 1e6).toFixed(0)} s of CPU.\n\n${table}\n`,
  );
}
