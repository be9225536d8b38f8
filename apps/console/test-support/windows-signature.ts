// What the Windows one-liner's check does, in Node, for tests (PowerShell cannot be installed on
// this machine): read the pinned keys out of the rendered command, import each the way
// CngKey.Import(EccPublicBlob) reads a BCRYPT_ECCPUBLIC_BLOB, and verify the signature the way
// ECDsa.VerifyData(data, signature, HashAlgorithmName.SHA256) does: ECDSA P-256 over SHA-256 of
// the bytes, the signature as r||s (IEEE P1363). A signature by any pinned key passes, as there.
import { createPublicKey, verify } from "node:crypto";

/** The base64 blobs of `$ks=@('…','…')` in a rendered Windows command. */
export function pinnedKeysOf(command: string): string[] {
  const list = /\$ks=@\(([^)]*)\)/.exec(command);
  if (!list) throw new Error("the command pins no keys ($ks)");
  return [...list[1]!.matchAll(/'([A-Za-z0-9+/=]+)'/g)].map((m) => m[1]!);
}

/** A BCRYPT_ECCPUBLIC_BLOB of a P-256 key as Node's key, refusing any other magic or length, as CNG does. */
export function keyFromBlob(base64: string) {
  const blob = Buffer.from(base64, "base64");
  if (blob.length !== 72 || blob.readUInt32LE(0) !== 0x31534345 || blob.readUInt32LE(4) !== 32) {
    throw new Error("not a BCRYPT_ECDSA_PUBLIC_P256 blob");
  }
  return createPublicKey({
    key: { kty: "EC", crv: "P-256", x: blob.subarray(8, 40).toString("base64url"), y: blob.subarray(40, 72).toString("base64url") },
    format: "jwk",
  });
}

/** The one-liner's `foreach ($k in $ks) { … VerifyData($sb,$sg,SHA256) … }`. */
export function verifiesAsWindows(sums: Buffer, signature: Buffer, blobs: readonly string[]): boolean {
  return blobs.some((blob) => verify("sha256", sums, { key: keyFromBlob(blob), dsaEncoding: "ieee-p1363" }, signature));
}
