/** Fetches JSON from our API; a problem+json answer becomes an Error carrying its detail. */
export async function fetchJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, { ...init, headers: { accept: "application/json", ...(init?.body ? { "content-type": "application/json" } : {}), ...init?.headers } });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const problem = body as { title?: string; detail?: string } | null;
    throw new Error(problem?.detail ?? problem?.title ?? `The console answered ${response.status}.`);
  }
  return body as T;
}
