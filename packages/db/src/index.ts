// @spindle/db: the relational client (Prisma), a pg pool for time-series SQL, the migration
// runner, the time-series mode, and the embedded PostgreSQL that `npm start` uses by default.
export { createPrisma, type PrismaOptions } from "./prisma.js";
export { createPool, type PoolOptions } from "./pool.js";
export { connectClient, DatabaseConnectionError, describeDatabaseUrl, explainConnectionFailure } from "./connect.js";
export {
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
  type EmbeddedPostgresOptions,
} from "./embedded-postgres.js";
export {
  defaultMigrationsDir,
  findTimeseriesMode,
  migrate,
  MigrationError,
  migrationStatus,
  pgSession,
  readMigrationStatus,
  readTimeseriesMode,
  runMigrations,
  scramVerifier,
  serviceLogins,
  timeseriesModes,
  timeseriesModeSchema,
  type AppliedMigration,
  type MigrateOptions,
  type MigrateResult,
  type MigrationSession,
  type MigrationState,
  type MigrationStatus,
  type MigrationStatusEntry,
  type MigrationVariant,
  type Queryable,
  type ServiceDatabaseUrls,
  type TimeseriesMode,
  type TimeseriesModeRequest,
} from "./migrate/index.js";
export { Prisma, PrismaClient } from "./generated/prisma/client.js";
export type {
  Account,
  Agent,
  AuditLog,
  EnrollmentToken,
  Invitation,
  Member,
  Organization,
  Policy,
  PolicyAssignment,
  PolicyVersion,
  Server,
  ServerPolicyStatus,
  Session,
  User,
  Verification,
} from "./generated/prisma/client.js";
export {
  serviceRoles,
  withOrgPrisma,
  withOrgTransaction,
  withSystemTransaction,
  type PrismaTransaction,
  type ServiceRole,
  type TenantQueryable,
} from "./tenant.js";
