import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { getRolloutSettings, setRolloutSettings } from "@/modules/rollouts/lib/rollout-settings";
import { rolloutSettingsInput } from "@/modules/rollouts/types/rollout";

export const GET = orgRoute({}, async ({ context }) => ({ settings: await getRolloutSettings(database(), context.orgId) }));

/** { rolloutsRequired }: owners only, audited. */
export const PUT = orgRoute({ body: rolloutSettingsInput, permission: { rollout: ["settings"] } }, async ({ context, body }) => ({
  settings: await setRolloutSettings(database(), context, body.rolloutsRequired),
}));
