/**
 * The CLI with garbage command lines, in-process (fuzz/targets/cli.ts) with every service at a closed port: a
 * mistake or a service that is down is one line on stderr and a non-zero exit, never a stack trace or a crash.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TargetReport } from '../../../fuzz/report.ts';
import { fuzzCli, runCli } from '../../../fuzz/targets/cli.ts';

const CLOSED = { TOOLTRAIL_CLICKHOUSE_URL: 'http://127.0.0.1:9', TOOLTRAIL_ALERTMANAGER_URL: 'http://127.0.0.1:9' };

async function withEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('CLI fuzzing (offline)', () => {
  it('a command that meets a service that is down fails with one line naming the fix, not a stack trace', async () => {
    await withEnv(CLOSED, async () => {
      for (const args of [
        ['owners', 'list'],
        ['warnings', 'ack', 'C1', 'src', '--reason', 'r'],
        ['alerts', '--once'],
      ]) {
        const r = await runCli(args);
        assert.equal(r.escaped, undefined, `${args.join(' ')} escaped: ${String(r.escaped)}`);
        assert.equal(r.code, 1);
        assert.match(r.err, /^tooltrail: .*ECONNREFUSED.*services up.*\n$/);
      }
    });
  });

  it('an owners command whose --source does not fit the kind fails with one line, not the store stack trace', async () => {
    await withEnv(CLOSED, async () => {
      for (const args of [
        ['owners', 'set', 'warning', 'W1', '--owner', 'o', '--reason', 'r'],
        ['owners', 'set', 'agent', 'a', '--source', 's', '--owner', 'o', '--reason', 'r'],
        ['owners', 'remove', 'warning', 'W1', '--reason', 'r'],
        ['warnings', 'ack', '', 'src', '--owner', 'o', '--tenant', 't', '--reason', 'r'],
        ['warnings', 'ack', 'W1', '', '--owner', 'o', '--tenant', 't', '--reason', 'r'],
      ]) {
        const r = await runCli(args);
        assert.equal(r.escaped, undefined, `${args.join(' ')} escaped: ${String(r.escaped)}`);
        assert.equal(r.code, 1);
        assert.match(r.err, /^tooltrail: .*(--source|subject).*\n$/);
      }
    });
  });

  it('an owners or warnings command with a blank --owner or --by fails with one line, not the store stack trace', async () => {
    await withEnv(CLOSED, async () => {
      for (const args of [
        ['owners', 'set', 'tool', 't', '--owner', ' ', '--reason', 'r'],
        ['owners', 'remove', 'tool', 't', '--by', '', '--reason', 'r'],
        ['warnings', 'retire', 'C1', 'src', '--by', ' ', '--reason', 'r'],
        ['warnings', 'ack', 'C1', 'src', '--owner', '', '--reason', 'r'],
      ]) {
        const r = await runCli(args);
        assert.equal(r.escaped, undefined, `${args.join(' ')} escaped: ${String(r.escaped)}`);
        assert.equal(r.code, 1);
        assert.match(r.err, /^tooltrail: --(owner|by) must not be empty.*\n$/);
      }
    });
  });

  it('a duration too long for a date (findings --since, warnings ack --due) fails with one line', async () => {
    await withEnv(CLOSED, async () => {
      for (const args of [
        ['findings', '--since', '99999999999999999m', '--tenant', 'acme'],
        ['warnings', 'ack', 'W1', 'src', '--due', '99999999999999999m', '--tenant', 't', '--reason', 'r'],
        ['alerts', '--once', '--interval', '1e9w'],
      ]) {
        const r = await runCli(args);
        assert.equal(r.escaped, undefined, `${args.join(' ')} escaped: ${String(r.escaped)}`);
        assert.equal(r.code, 1);
        assert.match(r.err, /^tooltrail: .*(longer than 100 years|invalid duration).*\n$/);
      }
    });
  });

  it('never crashes nor prints a stack trace on a garbage command line (400 seeded cases)', async () => {
    const report = new TargetReport('cli');
    await fuzzCli(400, 20261130, report);
    assert.ok(report.cases >= 390, `ran ${report.cases} cases`);
    assert.deepEqual(report.examples, []);
    assert.equal(report.violations, 0);
  });
});
