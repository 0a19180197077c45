// Child process of the restart test: one writer life. It writes BATCHES batches for TENANT into DATABASE with
// digests on, through a recorder that starts with nothing cached (a fresh process), then exits.
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { services, uniqueName } from '../../../testkit/services.ts';

const database = process.env.DATABASE ?? '';
const tenant = process.env.TENANT ?? '';
const batches = Number(process.env.BATCHES);
const seed = Number(process.env.SEED);
const ch = createClickHouse(services.clickhouse);
const writer = createClickHouseWriter(ch, { database, batchStored: createDigestRecorder(ch, { database }) });
for (let i = 0; i < batches; i++) {
  const rows = flatten(syntheticRequest({ tenant, toolSpans: 3, seed: seed * 1_000 + i }));
  await writer.writeRows(rows, { dedupToken: uniqueName('batch') });
}
await ch.close();
