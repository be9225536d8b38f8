// Runs in the browser (sign-up form) as well as on the server: Web Crypto only, no node:crypto.
function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(3));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A readable, unique slug: "Acme Storage" -> "acme-storage-3f9a1c". Names need not be unique. */
export function organisationSlug(name: string, suffix = randomSuffix()): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `${base || "org"}-${suffix}`;
}
