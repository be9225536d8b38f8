/** Fetches JSON from our API; a problem+json answer becomes an Error carrying its detail (and `errors`, per field, when it has them). */
export async function fetchJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, {
    ...init,
    headers: { accept: "application/json", ...(init?.body ? { "content-type": "application/json" } : {}), ...init?.headers },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const problem = body as { title?: string; detail?: string; errors?: { path: string; message: string }[] } | null;
    throw Object.assign(new Error(problem?.detail ?? problem?.title ?? `The console answered ${response.status}.`), {
      errors: problem?.errors ?? [],
    });
  }
  return body as T;
}
