import type { Db } from "@/lib/db";
import type { GainsExportQuery } from "../types/range";
import { fleetLedgerCsv, readSeriesCsv, serverLedgerCsv } from "./gains-csv";
import { queryFleetGains, queryServerGains } from "./query-gains";

/** The CSV file an export asks for, scoped to the caller's organisation like the pages. */
export async function exportGainsCsv(db: Db, orgId: string, query: GainsExportQuery, now = new Date()) {
  const range = { range: query.range, from: query.from, to: query.to };
  const stamp = now.toISOString().slice(0, 16).replace(":", "");
  if (!query.serverId)
    return { name: `spindle-gains-ledger-fleet-${stamp}.csv`, body: fleetLedgerCsv(await queryFleetGains(db, orgId, range, now)) };
  const gains = await queryServerGains(db, orgId, query.serverId, range, now);
  const host = gains.hostname.replace(/[^A-Za-z0-9._-]/g, "_");
  return query.what === "ledger"
    ? { name: `spindle-gains-ledger-${host}-${stamp}.csv`, body: serverLedgerCsv(gains) }
    : { name: `spindle-gains-reads-${host}-${stamp}.csv`, body: readSeriesCsv(gains) };
}
