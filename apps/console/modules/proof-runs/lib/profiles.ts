import { inOrg, type Db } from "@/lib/db";
import { z } from "zod";
import { offeredProfile, type OfferedProfile } from "../types/proof-run";

const capabilities = z.object({ proofRuns: z.object({ profiles: z.array(offeredProfile), paths: z.array(z.string()).default([]) }) });

/** What the server's agent offers for proof runs: its profiles and the directories agent.yaml allows. */
export interface ProofRunOffer {
  profiles: OfferedProfile[];
  paths: string[];
}

/** The offer in agents.capabilities.proofRuns; empty before the agent said. */
export function proofRunOffer(agentCapabilities: unknown): ProofRunOffer {
  const parsed = capabilities.safeParse(agentCapabilities);
  return parsed.success ? parsed.data.proofRuns : { profiles: [], paths: [] };
}

export function offeredProfiles(agentCapabilities: unknown): OfferedProfile[] {
  return proofRunOffer(agentCapabilities).profiles;
}

/** What the agent of the organisation's server offers. */
export async function getServerOffer(db: Db, orgId: string, serverId: string): Promise<ProofRunOffer> {
  const agent = await inOrg(db, orgId, (tx) =>
    tx.agent.findFirst({ where: { serverId, orgId, revokedAt: null }, select: { capabilities: true } }),
  );
  return agent ? proofRunOffer(agent.capabilities) : { profiles: [], paths: [] };
}
