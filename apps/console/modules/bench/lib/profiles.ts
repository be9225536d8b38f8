import { inOrg, type Db } from "@/lib/db";
import { z } from "zod";
import { offeredProfile, type OfferedProfile } from "../types/bench";

const capabilities = z.object({ bench: z.object({ profiles: z.array(offeredProfile), paths: z.array(z.string()).default([]) }) });

/** What the server's agent offers for proof runs: its profiles and the directories agent.yaml allows. */
export interface BenchOffer {
  profiles: OfferedProfile[];
  paths: string[];
}

/** The offer in agents.capabilities.bench; empty before the agent said. */
export function benchOffer(agentCapabilities: unknown): BenchOffer {
  const parsed = capabilities.safeParse(agentCapabilities);
  return parsed.success ? parsed.data.bench : { profiles: [], paths: [] };
}

export function offeredProfiles(agentCapabilities: unknown): OfferedProfile[] {
  return benchOffer(agentCapabilities).profiles;
}

/** What the agent of the organisation's server offers. */
export async function getServerOffer(db: Db, orgId: string, serverId: string): Promise<BenchOffer> {
  const agent = await inOrg(db, orgId, (tx) => tx.agent.findFirst({ where: { serverId, orgId, revokedAt: null }, select: { capabilities: true } }));
  return agent ? benchOffer(agent.capabilities) : { profiles: [], paths: [] };
}
