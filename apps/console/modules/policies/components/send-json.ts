import type { Problem } from "@spindle/policy";

export type SendResult<T> = { ok: true; data: T } | { ok: false; status: number; message: string; problems: Problem[] };

/**
 * Sends JSON to our API and keeps a problem+json answer whole: the policy editor needs its
 * `errors` (path, code, message) to mark fields, not just the detail line fetchJson keeps.
 */
export async function sendJson<T>(url: string, method: "POST" | "PUT" | "PATCH" | "DELETE", body?: unknown): Promise<SendResult<T>> {
  try {
    const response = await fetch(url, {
      method,
      headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (response.ok) return { ok: true, data: payload as T };
    const errors = Array.isArray(payload?.errors) ? (payload.errors as Problem[]).filter((error) => typeof error.code === "string") : [];
    const message = String(payload?.detail ?? payload?.title ?? `The console answered ${response.status}.`);
    return { ok: false, status: response.status, message, problems: errors };
  } catch {
    return { ok: false, status: 0, message: "Could not reach the console; check your connection and try again.", problems: [] };
  }
}
