import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { getRolloutSettings, setRolloutSettings } from "@/modules/rollouts/lib/rollout-settings";
import { rolloutSettingsInput } from "@/modules/rollouts/types/rollout";

const settingsAnswer = z.object({
  settings: z.object({
    rolloutsRequired: z.boolean().meta({ description: "Every organisation- or tag-wide change goes out as a rollout" }),
  }),
});

export const GET = orgRoute(
  { summary: "The organisation's rollout setting", tag: "Rollouts", response: settingsAnswer },
  async ({ context }) => ({ settings: await getRolloutSettings(database(), context.orgId) }),
);

/** { rolloutsRequired }: owners only, audited. */
export const PUT = orgRoute(
  {
    summary: "Require rollouts for wide changes",
    description: "On by default. Owners only; audited.",
    tag: "Rollouts",
    body: rolloutSettingsInput,
    permission: { rollout: ["settings"] },
    response: settingsAnswer,
  },
  async ({ context, body }) => ({ settings: await setRolloutSettings(database(), context, body.rolloutsRequired) }),
);
