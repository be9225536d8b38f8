// The one CSV writer every export uses (RFC 4180 with CRLF line ends), so quoting and formula
// neutralisation cannot differ between exports (issue 25, L3: the proof-run CSV let a leading
// TAB or CR through while the gains CSV did not).
//
// A text cell starting with = + - @ TAB CR or LF is prefixed with an apostrophe: spreadsheets
// run a cell starting with one of them as a formula (OWASP, "CSV injection"), and that prefix is
// what they show as "text". Numbers are written as numbers (a negative one stays a number); a
// number that is not finite, and null, are an empty cell: not measured, never 0.

export type CsvValue = string | number | null;

const formulaStart = /^[=+\-@\t\r\n]/;

/** One cell: quoted when it needs to be, text that a spreadsheet would run defused. */
export function csvCell(value: CsvValue): string {
  if (value === null) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  const text = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows of cells as a CSV document: CRLF after every row, the last included. */
export function csvDocument(rows: readonly (readonly CsvValue[])[]): string {
  return rows.map((row) => row.map(csvCell).join(",")).join("\r\n") + "\r\n";
}
