// Several servers' series on one time axis, for one chart: the union of their times, each server
// `undefined` where it has no sample at a time (the chart draws its line across) and null where
// it has a gap (the chart breaks its line), as uPlot reads them.
import type { ComparedServer } from "../types/comparison";

export function alignServers(servers: readonly Pick<ComparedServer, "time" | "values">[]): {
  time: number[];
  series: (number | null | undefined)[][];
} {
  const time = [...new Set(servers.flatMap((server) => server.time))].sort((a, b) => a - b);
  const index = new Map(time.map((t, i) => [t, i]));
  const series = servers.map((server) => {
    const values = new Array<number | null | undefined>(time.length).fill(undefined);
    server.time.forEach((t, i) => {
      values[index.get(t)!] = server.values[i];
    });
    return values;
  });
  return { time, series };
}
