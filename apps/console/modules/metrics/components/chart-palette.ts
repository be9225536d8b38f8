/** Read is blue, write is orange everywhere, so a glance across charts lines them up. */
export const palette = {
  read: "#2563eb",
  write: "#ea580c",
  single: "#7c3aed",
  total: "#64748b",
  available: "#16a34a",
  cached: "#0891b2",
  dirty: "#dc2626",
} as const;
