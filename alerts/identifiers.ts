/** Table names are built from the configured database: a plain identifier, checked before any use. */
const IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function table(database: string, name: string): string {
  if (!IDENTIFIER_RE.test(database)) throw new Error(`database "${database}" is not a plain identifier`);
  return `${database}.${name}`;
}

/** DateTime64(3) text ClickHouse parses in JSONEachRow input (UTC). */
export function chTime(t: Date): string {
  return t.toISOString().replace('T', ' ').replace('Z', '');
}

/** Wall-clock microseconds: the `version` of ReplacingMergeTree rows (newest write wins, whatever the clock). */
let lastVersion = 0n;
export function nextVersion(): string {
  let v = BigInt(Date.now()) * 1000n;
  if (v <= lastVersion) v = lastVersion + 1n;
  lastVersion = v;
  return v.toString();
}
