// Child process of the log crash test: one writer that stores one batch of TENANT into DATABASE with the Merkle log
// on, whose insert into audit_log_tiles never completes (it says `log-pending` on stdout and hangs), so the parent
// can kill it -9 once the rows are stored and their leaves are not.
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { services } from '../../../testkit/services.ts';

const database = process.env.DATABASE ?? '';
const tenant = process.env.TENANT ?? '';
const ch = createClickHouse(services.clickhouse);
const hangingNodes = new Proxy(ch, {
  get(target, p) {
    const v = Reflect.get(target, p);
    if (p !== 'insert' && p !== 'exec') return typeof v === 'function' ? v.bind(target) : v;
    return (a: { table?: string; query?: string }) => {
      const table = p === 'insert' ? a.table : /^INSERT INTO (\S+)/.exec(a.query ?? '')?.[1];
      if (!table?.endsWith('.audit_log_tiles')) return (v as (a: unknown) => Promise<unknown>).call(target, a);
      process.stdout.write('log-pending\n');
      return new Promise(() => undefined);
    };
  },
});
const recorder = createDigestRecorder(hangingNodes, {
  database,
  chain: process.env.CHAIN ?? '',
  log: { ...defaultLogConfig(), everyRows: 1_000_000, everySeconds: 3600 },
});
const writer = createClickHouseWriter(hangingNodes, { database, batchStored: recorder });
const rows = flatten(
  syntheticRequest({ tenant, toolSpans: 20, seed: Number(process.env.SEED), startMs: Number(process.env.START_MS) }),
);
await writer.writeRows(rows, { dedupToken: process.env.TOKEN ?? '' });
process.stdout.write('acknowledged\n');
