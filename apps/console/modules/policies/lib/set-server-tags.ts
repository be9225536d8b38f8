import { inOrg, type Db } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { serverTagsInput, type ServerTagsInput } from "../types/policy";
import { recordAudit } from "./audit";
import { requirePolicyPermission, type PolicyActor } from "./authorise";

/**
 * Replaces a server's tags (normalised: lowercase, unique, sorted). Tags decide which tag
 * policies apply, so the database announces the change to the gateways at commit.
 */
export async function setServerTags(db: Db, actor: PolicyActor, serverId: string, rawInput: ServerTagsInput): Promise<string[]> {
  requirePolicyPermission(actor, "assign");
  const { tags } = serverTagsInput.parse(rawInput);
  if (!isUuid(serverId)) throw notFound("This server");
  return inOrg(db, actor.orgId, async (tx) => {
    const locked = await tx.$queryRaw<{ hostname: string; tags: string[] }[]>`
      SELECT hostname, tags FROM servers WHERE id = ${serverId}::uuid AND org_id = ${actor.orgId} FOR UPDATE`;
    const server = locked[0];
    if (!server) throw notFound("This server");
    if (server.tags.join("\n") === tags.join("\n")) return tags;
    await tx.server.update({ where: { id: serverId }, data: { tags } });
    await recordAudit(tx, actor, "server.tags_changed", serverId, { hostname: server.hostname, before: server.tags, after: tags });
    return tags;
  });
}
