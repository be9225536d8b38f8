const units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** 67108864 → "64 MiB"; sizes in policies are whole bytes, so only exact binary units are used. */
export function formatBinaryBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (unit < units.length - 1 && value >= 1024 && value % 1024 === 0) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toLocaleString("en")} ${units[unit]}`;
}

/** One policy value for people: sizes in binary units, lists one per line, null spelled out. */
export function formatPolicyValue(path: string, value: unknown): string {
  if (value === undefined) return "—";
  if (value === null) return path.endsWith("budgetBytes") ? "no cap" : "null";
  if (typeof value === "number" && /Bytes$/.test(path)) return formatBinaryBytes(value);
  if (typeof value === "number" && /Seconds$/.test(path)) return `${value.toLocaleString("en")} s`;
  if (typeof value === "number" && /Percent/.test(path)) return `${value} %`;
  if (Array.isArray(value)) {
    if (value.length === 0) return "none";
    return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join("\n");
  }
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}
