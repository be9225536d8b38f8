// argon2id with OWASP's recommended minimum (19 MiB, 2 passes, 1 lane) instead of better-auth's
// default scrypt. The encoded hash carries its parameters, so raising them later keeps old
// passwords verifiable.
import { hash, verify } from "@node-rs/argon2";

// @node-rs/argon2 exports Algorithm as a const enum, which isolated modules cannot inline.
const ARGON2ID = 2;

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
}

export async function verifyPassword({ hash: encoded, password }: { hash: string; password: string }): Promise<boolean> {
  try {
    return await verify(encoded, password);
  } catch {
    // A malformed stored hash is a failed sign-in, not a server error.
    return false;
  }
}
