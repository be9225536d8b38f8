// Numbers as recommendations quote them: binary units, whole percent points.

const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** 6442450944 → "6 GiB"; 1.5 GiB → "1.5 GiB" (one decimal where it is not whole). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const rounded = Math.round(value * 10) / 10;
  return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)} ${units[unit]}`;
}

/** 0.6149 → "61 %". */
export function formatPercent(ratio: number): string {
  return `${Math.round(ratio * 100)} %`;
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}
