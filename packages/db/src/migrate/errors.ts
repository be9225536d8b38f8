/** A problem the person running migrations has to act on; the message says what to do. */
export class MigrationError extends Error {
  override readonly name = "MigrationError";
}
