import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { removeSsoSettings, saveSsoSettings } from "@/modules/sso/lib/sso-settings";
import { saveSsoInput } from "@/modules/sso/types/sso";

/** Owners only: set up or change the organisation's OIDC provider (its discovery document is read first). */
export const PUT = orgRoute({ body: saveSsoInput, permission: { security: ["update"] } }, async ({ context, body, request }) => ({
  sso: await saveSsoSettings(database(), context, request.headers, body),
}));

/** Owners only: remove single sign-on; members it created keep their accounts but must reset a password to sign in. */
export const DELETE = orgRoute({ permission: { security: ["update"] } }, async ({ context, request }) => removeSsoSettings(database(), context, request.headers));
