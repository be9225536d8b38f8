// Reads an identity provider's OpenID configuration when an owner saves SSO settings. The
// console fetches it itself: public providers are reachable; a provider on a private network
// (or loopback) only when the operator listed its origin in SPINDLE_SSO_TRUSTED_ISSUERS, so an
// organisation's settings cannot make the console fetch internal addresses.
import { isPublicRoutableHost } from "@better-auth/core/utils/host";
import { discoverOIDCConfig, DiscoveryError } from "@better-auth/sso";
import { env } from "@/lib/env";
import { ProblemError } from "@/lib/problem";

export function issuerAllowed(url: string, trusted: string[] = env().SPINDLE_SSO_TRUSTED_ISSUERS): boolean {
  try {
    const parsed = new URL(url);
    return trusted.includes(parsed.origin) || (parsed.protocol === "https:" && isPublicRoutableHost(parsed.hostname));
  } catch {
    return false;
  }
}

export interface DiscoveredEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksEndpoint: string;
  userInfoEndpoint?: string;
  discoveryEndpoint: string;
  tokenEndpointAuthentication: "client_secret_basic" | "client_secret_post";
}

export async function discoverIssuer(issuer: string): Promise<DiscoveredEndpoints> {
  if (!issuerAllowed(issuer)) {
    throw new ProblemError(
      422,
      "Identity provider not allowed",
      `${issuer} is not a public https address. An identity provider on a private network works only when the operator adds its origin (${new URL(issuer).origin}) to SPINDLE_SSO_TRUSTED_ISSUERS.`,
    );
  }
  try {
    const found = await discoverOIDCConfig({ issuer, isTrustedOrigin: (url) => issuerAllowed(url), timeout: 10_000 });
    return {
      authorizationEndpoint: found.authorizationEndpoint,
      tokenEndpoint: found.tokenEndpoint,
      jwksEndpoint: found.jwksEndpoint,
      userInfoEndpoint: found.userInfoEndpoint,
      discoveryEndpoint: found.discoveryEndpoint,
      tokenEndpointAuthentication:
        found.tokenEndpointAuthentication === "client_secret_post" ? "client_secret_post" : "client_secret_basic",
    };
  } catch (error) {
    if (error instanceof DiscoveryError) {
      throw new ProblemError(
        422,
        "Identity provider not reachable",
        `Reading ${issuer}/.well-known/openid-configuration failed: ${error.message}`,
      );
    }
    throw error;
  }
}
