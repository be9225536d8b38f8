#!/usr/bin/env node
// Generates the Prisma client into src/generated/prisma without any network access.
// `prisma generate` only needs the schema engine binary to exist: Prisma 7 builds the client
// with its bundled WebAssembly query compiler, yet still resolves (and would download) the
// engine first. Pointing PRISMA_SCHEMA_ENGINE_BINARY at any executable skips that download.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const prismaCli = createRequire(import.meta.url).resolve("prisma/build/index.js");

execFileSync(process.execPath, [prismaCli, "generate", "--schema", "prisma/schema.prisma"], {
  cwd: packageDir,
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? "/bin/true",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
