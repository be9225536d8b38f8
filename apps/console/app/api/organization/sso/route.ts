import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { removeSsoSettings, saveSsoSettings } from "@/modules/sso/lib/sso-settings";
import { saveSsoInput, ssoSettings } from "@/modules/sso/types/sso";

export const PUT = orgRoute(
  {
    summary: "Set up or change single sign-on",
    description:
      "An OpenID Connect provider: its discovery document is read first (422 when it cannot be). The client secret is sealed at rest and never answered.",
    tag: "Security",
    body: saveSsoInput,
    permission: { security: ["update"] },
    response: z.object({ sso: ssoSettings }),
    errors: [409, 422],
  },
  async ({ context, body, request }) => ({ sso: await saveSsoSettings(database(), context, request.headers, body) }),
);

export const DELETE = orgRoute(
  {
    summary: "Remove single sign-on",
    description: "Members who joined by single sign-on keep their accounts; to sign in again they reset a password.",
    tag: "Security",
    permission: { security: ["update"] },
    response: z.object({ removed: z.boolean() }),
    errors: [422],
  },
  async ({ context, request }) => removeSsoSettings(database(), context, request.headers),
);
