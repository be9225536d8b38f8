const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids of servers and tokens are uuids; anything else cannot exist and is a 404, not a 500. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
