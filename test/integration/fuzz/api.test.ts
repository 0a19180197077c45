/**
 * The reconstruction/verify API (`tooltrail serve-api`) and the CLI against the real ClickHouse, each in a fresh
 * database: generated requests with and without a bearer token, and garbage command lines (fuzz/targets/).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { TargetReport } from '../../../fuzz/report.ts';
import { buildFuzzApiServer, fuzzApi } from '../../../fuzz/targets/api.ts';
import { fuzzCli } from '../../../fuzz/targets/cli.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

describe('API and CLI fuzzing against ClickHouse', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  before(async () => {
    db = await freshDatabase('tt_fuzz');
    app = await buildFuzzApiServer(db.ch, db.schema);
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  it('the reconstruction and verify API never answers 5xx to a malformed request (800 seeded cases)', async () => {
    const report = new TargetReport('api');
    await fuzzApi(app, 800, 20261130, report);
    assert.deepEqual(
      report.examples.map((v) => `${v.input} -> ${v.answer}`),
      [],
    );
    assert.equal(report.violations, 0);
    for (const status of ['200', '400', '404']) assert.ok(report.outcomes.get(status), `no ${status} answer`);
  });

  it('the CLI never crashes nor prints a stack trace on a garbage command line against a real database (300 cases)', async () => {
    const report = new TargetReport('cli-database');
    await fuzzCli(300, 20261130, report, db.database);
    assert.deepEqual(report.examples, []);
    assert.equal(report.violations, 0);
  });
});
