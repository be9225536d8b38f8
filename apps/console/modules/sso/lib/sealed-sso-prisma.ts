// better-auth's sso plugin reads and writes sso_providers through the Prisma client it is given.
// This extension of that client seals the client secret inside oidc_config on every write and
// opens it on every read, so the plugin works with the secret in memory while the table holds
// only the sealed form (sealed-client-secret.ts).
import type { Prisma } from "@/lib/db";
import { type ClientSecretBox, openOidcConfig, sealOidcConfig } from "./sealed-client-secret";

type Row = { providerId?: string; oidcConfig?: string | null } | null;
type Args = { where?: Record<string, unknown>; data?: Record<string, unknown> };

export function withSealedSsoSecrets(prisma: Prisma, box: ClientSecretBox): Prisma {
  async function providerIdOf(args: Args): Promise<string> {
    const fromData = args.data?.providerId;
    if (typeof fromData === "string") return fromData;
    const fromWhere = args.where?.providerId;
    if (typeof fromWhere === "string") return fromWhere;
    const found = await prisma.ssoProvider.findFirst({ where: args.where as never, select: { providerId: true } });
    if (!found) throw new Error("SSO provider not found while sealing its client secret");
    return found.providerId;
  }

  async function sealArgs(args: Args): Promise<Args> {
    const config = args.data?.oidcConfig;
    if (typeof config !== "string") return args;
    return { ...args, data: { ...args.data, oidcConfig: sealOidcConfig(box, await providerIdOf(args), config) } };
  }

  function openRow<T extends Row>(row: T): T {
    if (!row || typeof row.oidcConfig !== "string") return row;
    if (typeof row.providerId !== "string") throw new Error("SSO provider read without its providerId: the client secret cannot be opened");
    return { ...row, oidcConfig: openOidcConfig(box, row.providerId, row.oidcConfig) };
  }

  const opened = <T>(result: T): T =>
    Array.isArray(result) ? (result.map((row) => openRow(row as Row)) as T) : (openRow(result as Row) as T);

  return prisma.$extends({
    query: {
      ssoProvider: {
        async create({ args, query }) {
          return opened(await query((await sealArgs(args as Args)) as typeof args));
        },
        async update({ args, query }) {
          return opened(await query((await sealArgs(args as Args)) as typeof args));
        },
        async updateMany({ args, query }) {
          return query((await sealArgs(args as Args)) as typeof args);
        },
        async upsert() {
          throw new Error("sso_providers: upsert is not supported (the client secret would be written unsealed)");
        },
        async findFirst({ args, query }) {
          return opened(await query(args));
        },
        async findFirstOrThrow({ args, query }) {
          return opened(await query(args));
        },
        async findUnique({ args, query }) {
          return opened(await query(args));
        },
        async findUniqueOrThrow({ args, query }) {
          return opened(await query(args));
        },
        async findMany({ args, query }) {
          return opened(await query(args));
        },
        async delete({ args, query }) {
          return opened(await query(args));
        },
      },
    },
  }) as unknown as Prisma;
}
