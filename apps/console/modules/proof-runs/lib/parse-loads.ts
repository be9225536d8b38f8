/** Parses "1x1, 2x4, 4x8" (threads × outstanding I/Os) into load steps; "" is the profile's own. */
export function parseLoads(text: string): { threads: number; outstanding: number }[] | string {
  const parts = text
    .split(/[,;\s]+/)
    .map((part) => part.trim())
    .filter(Boolean);
  const loads = [];
  for (const part of parts) {
    const match = /^(\d{1,3})\s*[x×*]\s*(\d{1,3})$/i.exec(part);
    if (!match) return `“${part}” is not threads x outstanding I/Os, e.g. 2x4`;
    const threads = Number(match[1]);
    const outstanding = Number(match[2]);
    if (threads < 1 || outstanding < 1) return `“${part}”: threads and outstanding I/Os start at 1`;
    loads.push({ threads, outstanding });
  }
  return loads;
}
