/**
 * The Kafka witness (audit/log/kafka-witness.ts) against the real broker: every signed checkpoint is produced to the
 * topic; `tooltrail checkpoint verify --from-kafka` reads the newest of each log back and checks it against the tree
 * as stored, so a tree rewritten after the checkpoint left for Kafka fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultLogConfig, kafkaWitnessOf } from '../../../audit/log/config.ts';
import { latestWitnessed } from '../../../audit/log/kafka-witness.ts';
import { generateNoteKey, parseSigner } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { registerCheckpointCommands } from '../../../cli/commands/checkpoint/command.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { deleteTopics, type KafkaClient } from '../../../platform/kafka/index.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { runCliInProcess } from '../../../testkit/cli-in-process.ts';
import { serializeSpans, stampTenant } from '../../../testkit/ingest.ts';
import { freshDatabase, requireKafka, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario } from '../reconstruct/scenario.ts';

describe('checkpoints witnessed on a Kafka topic', () => {
  let db: TestDatabase;
  let kafka: KafkaClient;
  const topic = uniqueName('tt-witness');
  const key = generateNoteKey('kafka.witness.test');
  before(async () => {
    kafka = await requireKafka();
    db = await freshDatabase('tt_kwitness');
  });
  after(async () => {
    await deleteTopics(kafka, [topic]).catch(() => undefined);
    await db?.drop();
  });

  async function loggedTenant(batches: number) {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, {
      database: db.database,
      chain,
      log: {
        ...defaultLogConfig(),
        signer: parseSigner(key.signer),
        everyRows: 5,
        witnessKafka: kafkaWitnessOf(topic),
      },
    });
    for (let b = 0; b < batches; b++) {
      const rows = flatten(
        stampTenant(decodeExportTraceServiceRequest(serializeSpans(runScenario(uniqueName('s')).spans)), tenant),
      );
      await createClickHouseWriter(db.ch, { database: db.database, batchStored: rec }).writeRows(rows, {
        dedupToken: uniqueName('batch'),
      });
    }
    return { tenant, chain, id: { tenant, log: chain } };
  }

  const cli = (args: string[]) =>
    runCliInProcess([registerCheckpointCommands], ['checkpoint', 'verify', '--from-kafka', '--topic', topic, ...args], {
      TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
      TOOLTRAIL_CHECKPOINT_VERIFIERS: key.verifier,
    });

  it('produces every signed checkpoint to the topic, and reads back the newest of each log', async () => {
    const t = await loggedTenant(2);
    const stored = await new LogStore(db.ch, db.database).checkpoints(t.id);
    assert.equal(stored.length, 2, 'each batch adds more than 5 leaves');
    const latest = (await latestWitnessed(kafkaWitnessOf(topic))).get(`${t.tenant}/${t.chain}`);
    assert.ok(latest, 'the topic holds the log');
    assert.equal(latest.note, stored.at(-1)!.note);
    assert.equal(String(latest.size), stored.at(-1)!.size_text);
  });

  it('checkpoint verify --from-kafka accepts the witnessed checkpoint, and fails once the stored tree was rewritten', async () => {
    const t = await loggedTenant(1);
    const ok = await cli(['--tenant', t.tenant]);
    assert.equal(ok.code, 0, ok.out + ok.err);
    assert.match(ok.out, new RegExp(`VERIFIED: checkpoint ${t.tenant}/${t.chain}`));

    // The database writer rewrites the tree's tiles and drops the checkpoints it stored: the Kafka copy is out of reach.
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE hashes = reverse(hashes) WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile'`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_checkpoints DELETE WHERE tenant = {tenant:String} AND log = {log:String}`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const bad = await cli(['--tenant', t.tenant]);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /FAILED \(checkpoint_root_mismatch\)/);
  });

  it('says so when the topic holds no checkpoint of the tenant', async () => {
    const r = await cli(['--tenant', uniqueName('nobody')]);
    assert.equal(r.code, 1);
    assert.match(r.err, /holds no checkpoint of tenant/);
  });
});
