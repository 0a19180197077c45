// Child process of the restart test: one writer life. It writes BATCHES batches for TENANT into DATABASE with
// digests on, through a recorder that starts with nothing cached (a fresh process), then exits. It imports no Kafka
// client (testkit/services.ts would load both, ~2 s of CPU per life).
import { randomUUID } from 'node:crypto';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';

const database = process.env.DATABASE ?? '';
const tenant = process.env.TENANT ?? '';
const batches = Number(process.env.BATCHES);
const seed = Number(process.env.SEED);
const ch = createClickHouse(loadServicesConfig().clickhouse);
const writer = createClickHouseWriter(ch, { database, batchStored: createDigestRecorder(ch, { database }) });
for (let i = 0; i < batches; i++) {
  const rows = flatten(syntheticRequest({ tenant, toolSpans: 3, seed: seed * 1_000 + i }));
  await writer.writeRows(rows, { dedupToken: `batch-${randomUUID()}` });
}
await ch.close();
