// An API token in `Authorization: Bearer spk_…` stands for the member who created it, in the
// organisation that owns it, with the lesser of the token's role and that member's role now: a
// demoted member's tokens are demoted with them, and a member who left takes their tokens'
// power along. better-auth's api-key plugin checks the token (hash lookup, revoked, expired) and
// records its last use; the per-token rate limit is counted here, in the database.
import { countApiTokenRequest, database, identityTables } from "@/lib/db";
import { env } from "@/lib/env";
import { ProblemError } from "@/lib/problem";
import { isRoleName, lesserRole } from "@/modules/auth/lib/access";
import { auth } from "@/modules/auth/lib/auth";
import type { OrgContext } from "@/modules/auth/types/context";
import { apiTokenMetadata } from "../types/api-token";
import { FAILED_TOKEN_ATTEMPTS_PER_MINUTE, tokenGuessLimit } from "./token-guess-limit";

const RATE_WINDOW_SECONDS = 60;

/** The bearer token of the request, "" for an empty one, null when the request carries none. */
export function bearerToken(headers: Headers): string | null {
  const value = headers.get("authorization");
  if (!value) return null;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(value.trim());
  return match ? (match[1] ?? "").trim() : null;
}

function unauthorised(detail: string, error = "invalid_token"): ProblemError {
  return new ProblemError(401, "Invalid API token", detail, undefined, { "www-authenticate": `Bearer realm="spindle", error="${error}"` });
}

const refusals: Record<string, string> = {
  KEY_DISABLED: "This API token was revoked. Create a new one in Settings → API tokens.",
  KEY_EXPIRED: "This API token has expired. Create a new one in Settings → API tokens.",
};

/**
 * The organisation context of a bearer token. `clientAddress` is the address server.ts decided
 * (lib/client-address.ts); null only outside it, where every such request shares one budget.
 */
export async function resolveTokenContext(token: string, clientAddress: string | null): Promise<OrgContext> {
  const guesses = tokenGuessLimit();
  const address = clientAddress ?? "unknown";
  const wait = guesses.retryAfterSeconds(address);
  if (wait !== null) {
    throw new ProblemError(
      429,
      "Too many requests",
      `More than ${FAILED_TOKEN_ATTEMPTS_PER_MINUTE} requests from this address carried an invalid API token in a minute; try again in ${wait} s.`,
      undefined,
      { "retry-after": String(wait) },
    );
  }
  if (!token) throw unauthorised("The Authorization header has no token after Bearer.", "invalid_request");
  const verified = await auth().api.verifyApiKey({ body: { key: token } });
  if (!verified.valid || !verified.key) {
    guesses.recordFailure(address);
    throw unauthorised(
      refusals[verified.error?.code ?? ""] ??
        "This API token is not valid. Check that it was copied whole, or create a new one in Settings → API tokens.",
    );
  }
  const key = verified.key;
  const metadata = apiTokenMetadata.safeParse(key.metadata);
  if (!metadata.success) throw unauthorised("This API token was not created by Spindle's console.");
  const member = await identityTables(database()).member.findFirst({
    where: { userId: metadata.data.createdBy, organizationId: key.referenceId },
    select: { role: true, user: { select: { name: true, email: true } }, organization: { select: { name: true } } },
  });
  if (!member || !isRoleName(member.role)) {
    throw unauthorised(
      "The member who created this API token no longer belongs to the organisation, so the token no longer works. Create a new one.",
    );
  }
  const counted = await countApiTokenRequest(database(), key.id, RATE_WINDOW_SECONDS);
  const limit = env().SPINDLE_API_TOKEN_RATE_LIMIT;
  if (counted && counted.count > limit) {
    throw new ProblemError(
      429,
      "Too many requests",
      `This API token may make ${limit} requests a minute; try again in ${counted.retryAfterSeconds} s.`,
      undefined,
      { "retry-after": String(counted.retryAfterSeconds) },
    );
  }
  return {
    userId: metadata.data.createdBy,
    userName: member.user.name,
    userEmail: member.user.email,
    orgId: key.referenceId,
    orgName: member.organization.name,
    role: lesserRole(metadata.data.role, member.role),
    apiToken: { id: key.id, name: key.name ?? "" },
  };
}
