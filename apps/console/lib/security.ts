// Browser-facing hardening applied by proxy.ts to every request (issue 11, defect 10): a
// Content-Security-Policy with a per-request nonce (Next.js puts it on its own scripts), no
// framing, no MIME sniffing, a strict referrer, HSTS when served over https, and an Origin
// check on every mutation, API routes and server actions alike (both are non-GET requests).

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/** Content-Security-Policy for one response. `dev` allows what `next dev` needs (eval for HMR). */
export function contentSecurityPolicy(nonce: string, options: { dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    // React and the chart library set style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${options.dev ? " ws: wss:" : ""}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

/** The headers every response carries besides the CSP. */
export function securityHeaders(options: { https: boolean }): Record<string, string> {
  const headers: Record<string, string> = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-frame-options": "DENY",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
  };
  if (options.https) headers["strict-transport-security"] = "max-age=63072000; includeSubDomains";
  return headers;
}

/**
 * Undefined when the request may proceed; otherwise why a mutation is refused. A mutation must
 * come from the console's own origin: the Origin header (sent by every browser on POST, PUT,
 * PATCH, DELETE) must be the console's. A request without Origin is accepted only when the
 * browser marks it same-origin (Sec-Fetch-Site), or when it carries an API token (scripts).
 */
export function refuseCrossOrigin(method: string, headers: Headers, consoleOrigin: string, path = "/"): string | undefined {
  if (safeMethods.has(method.toUpperCase())) return undefined;
  // A request with an API token acts as the token, never as the browser's cookies (org-context.ts
  // ignores them then), and a page on another site cannot add an Authorization header without a
  // CORS preflight, which the console never grants: it cannot be forged cross-site. Scripts call
  // the API this way. better-auth's own routes (/api/auth) take no tokens and stay checked.
  if (/^Bearer\b/i.test(headers.get("authorization") ?? "") && path.startsWith("/api/") && !path.startsWith("/api/auth/")) return undefined;
  const origin = headers.get("origin");
  if (origin) {
    return origin === consoleOrigin
      ? undefined
      : `This ${method} came from ${origin}, not from the console (${consoleOrigin}); changes are accepted only from the console's own pages.`;
  }
  if (headers.get("sec-fetch-site") === "same-origin") return undefined;
  return `This ${method} has no Origin header; changes are accepted only from the console's own pages (${consoleOrigin}).`;
}

/** The RFC 9457 body of a refused mutation. */
export function crossOriginProblem(detail: string): Response {
  return new Response(JSON.stringify({ type: "about:blank", status: 403, title: "Cross-origin request refused", detail }), {
    status: 403,
    headers: { "content-type": "application/problem+json", "cache-control": "no-store" },
  });
}
