// Rows the DB-backed tests build on: organisations with a user, and servers.
import { randomUUID } from "node:crypto";
import type { Prisma } from "@/lib/db";

export async function createOrganisation(prisma: Prisma, name: string) {
  const suffix = randomUUID().slice(0, 8);
  const user = await prisma.user.create({ data: { id: `user-${suffix}`, name: `${name} owner`, email: `owner-${suffix}@example.com` } });
  const org = await prisma.organization.create({ data: { id: `org-${suffix}`, name, slug: `${name.toLowerCase()}-${suffix}` } });
  await prisma.member.create({ data: { id: `member-${suffix}`, organizationId: org.id, userId: user.id, role: "owner" } });
  return { orgId: org.id, userId: user.id };
}

export async function createServer(prisma: Prisma, orgId: string, hostname: string, lastSeenAt: Date | null = null) {
  return prisma.server.create({
    data: {
      orgId,
      machineId: randomUUID(),
      hostname,
      os: "linux",
      osVersion: "Debian GNU/Linux 12 (bookworm)",
      kernel: "6.1.0-18-amd64",
      arch: "amd64",
      agentVersion: "0.1.0",
      lastSeenAt,
    },
  });
}
