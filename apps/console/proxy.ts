// Runs before every request (Next.js 16 "proxy", formerly middleware): refuses cross-origin
// mutations with problem+json 403 and sets the security headers, including a per-request CSP
// nonce that Next.js reads from the request's Content-Security-Policy and puts on its scripts.
import { NextResponse, type NextRequest } from "next/server";
import { consoleIsHttps, env } from "@/lib/env";
import { contentSecurityPolicy, crossOriginProblem, refuseCrossOrigin, securityHeaders } from "@/lib/security";

export function proxy(request: NextRequest) {
  const refusal = refuseCrossOrigin(request.method, request.headers, new URL(env().SPINDLE_CONSOLE_URL).origin, request.nextUrl.pathname);
  if (refusal) return crossOriginProblem(refusal);

  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const csp = contentSecurityPolicy(nonce, { dev: process.env.NODE_ENV === "development" });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  for (const [name, value] of Object.entries(securityHeaders({ https: consoleIsHttps() }))) response.headers.set(name, value);
  return response;
}

export const config = {
  // Everything except Next's hashed static assets, which carry no user data and no scripts of ours.
  matcher: [{ source: "/((?!_next/static|_next/image|favicon.ico|icon.svg).*)" }],
};
