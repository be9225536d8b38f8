/** Numbers on the report: three significant figures, thousands separated; null is "not measured". */
export function formatNumber(value: number | null, digits = 3): string {
  if (value === null || !Number.isFinite(value)) return "not measured";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-GB");
  return Number(value.toPrecision(digits)).toLocaleString("en-GB", { maximumFractionDigits: 6 });
}

export function formatPercent(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "not measured";
  const rounded = Math.round(value * 10) / 10;
  return `${rounded > 0 ? "+" : ""}${rounded} %`;
}

export function formatMs(value: number | null): string {
  return value === null ? "not measured" : `${formatNumber(value)} ms`;
}
