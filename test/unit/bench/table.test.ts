import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BENCHES, selectBenches } from '../../../bench/run-all/benches.ts';
import {
  type BenchOutcome,
  benchOutcome,
  formatNumber,
  formatRatio,
  formatTable,
  lastLine,
  parseBenchOutput,
  runExitCode,
  tableRows,
} from '../../../bench/run-all/table.ts';

const line = (bench: string, value: number) =>
  `BENCH_JSON ${JSON.stringify({ bench, figures: [{ name: 'rows/s', value, unit: 'rows/s' }], load: [1, 2, 3], cores: 2 })}`;

const run = (stdout: string, exitCode: number | null = 0, lastStderrLine?: string) => ({
  bench: 'b',
  exitCode,
  signal: exitCode === null ? 'SIGKILL' : null,
  stdout,
  ...(lastStderrLine ? { lastStderrLine } : {}),
  durationMs: 10,
});

describe('parseBenchOutput', () => {
  it('reads the figures of the BENCH_JSON line among human-readable lines', () => {
    const r = parseBenchOutput(`round 1: 10 rows/s\n${line('b', 42)}\n`);
    assert.ok(r.ok);
    assert.equal(r.report.bench, 'b');
    assert.equal(r.report.figures[0]?.value, 42);
    assert.deepEqual(r.report.load, [1, 2, 3]);
  });

  it('reports a missing BENCH_JSON line as a reason, not an exception', () => {
    assert.deepEqual(parseBenchOutput('round 1: 10 rows/s\n'), { ok: false, reason: 'no BENCH_JSON line' });
  });

  it('only counts the prefix at the start of a line', () => {
    assert.equal(parseBenchOutput(`note: BENCH_JSON {"bench":"b","figures":[]}\n`).ok, false);
  });

  it('reports invalid JSON as a malformed line', () => {
    const r = parseBenchOutput('BENCH_JSON {"bench": "b", "figures": [\n');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.reason, /^malformed BENCH_JSON line: /);
  });

  it('reports valid JSON of the wrong shape as malformed, naming the field', () => {
    const r = parseBenchOutput('BENCH_JSON {"bench":"b","figures":[{"name":"x","value":"fast","unit":"u"}]}');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.reason, /figures\.0\.value/);
  });

  it('takes the last of two BENCH_JSON lines', () => {
    const r = parseBenchOutput(`${line('b', 1)}\nmore output\n${line('b', 2)}\n`);
    assert.ok(r.ok);
    assert.equal(r.report.figures[0]?.value, 2);
  });

  it('takes the last line even when an earlier one was well-formed and the last is not', () => {
    assert.equal(parseBenchOutput(`${line('b', 1)}\nBENCH_JSON {oops\n`).ok, false);
  });
});

describe('benchOutcome', () => {
  it('fails a bench that exits non-zero, with the exit code and last stderr line, even if it printed a report', () => {
    const o = benchOutcome(run(line('b', 1), 1, 'Error: connect ECONNREFUSED 127.0.0.1:9092'));
    assert.equal(o.status, 'failed');
    assert.equal(o.status === 'failed' && o.reason, 'exit code 1: Error: connect ECONNREFUSED 127.0.0.1:9092');
  });

  it('names the signal of a killed bench', () => {
    const o = benchOutcome(run('', null));
    assert.equal(o.status === 'failed' && o.reason, 'killed by SIGKILL');
  });

  it('fails a bench that exits 0 without a BENCH_JSON line', () => {
    const o = benchOutcome(run('all good\n'));
    assert.equal(o.status === 'failed' && o.reason, 'no BENCH_JSON line');
  });

  it('passes a bench that exits 0 with a well-formed last line', () => {
    assert.equal(benchOutcome(run(line('b', 3))).status, 'ok');
  });

  it('shows a failed optional bench as not available, which does not fail the run', () => {
    const o = benchOutcome(run('', 2, 'boom'), true);
    assert.equal(o.status, 'unavailable');
    assert.equal(o.status === 'unavailable' && o.reason, 'failed (exit code 2: boom)');
    assert.equal(runExitCode([o]), 0);
  });
});

describe('runExitCode', () => {
  it('is non-zero when any bench failed, zero when all passed', () => {
    const ok = benchOutcome(run(line('b', 3)));
    const failed = benchOutcome(run('', 1));
    assert.equal(runExitCode([ok, ok]), 0);
    assert.equal(runExitCode([ok, failed, ok]), 1);
  });
});

describe('lastLine', () => {
  it('is the last non-empty line, trimmed', () => {
    assert.equal(lastLine('first\n  Error: boom  \n\n'), 'Error: boom');
    assert.equal(lastLine('\n\n'), undefined);
  });
});

describe('formatNumber', () => {
  it('groups large numbers and keeps three significant digits of small ones', () => {
    assert.equal(formatNumber(66_543.7), '66,544');
    assert.equal(formatNumber(12.3456), '12.3');
    assert.equal(formatNumber(0.98765), '0.988');
    assert.equal(formatNumber(0), '0');
    assert.equal(formatNumber(Number.NaN), 'NaN');
  });
});

describe('formatRatio', () => {
  it('keeps two decimals so a ratio just over a target does not round onto it', () => {
    assert.equal(formatRatio(1.3004), '1.30x');
    assert.equal(formatRatio(1.306), '1.31x');
    assert.equal(formatRatio(0.0123), '0.012x');
  });
});

describe('formatTable', () => {
  const ok: BenchOutcome = {
    bench: 'ingest-throughput',
    status: 'ok',
    durationMs: 1,
    report: {
      bench: 'ingest-throughput',
      figures: [
        {
          name: 'ingest rows/s',
          value: 66_000,
          unit: 'rows/s',
          min: 61_000,
          max: 70_500,
          runs: 3,
          baseline: { name: 'writer-only', value: 120_000 },
          ratio: 0.55,
          target: '≥ 100,000 rows/s',
          met: false,
        },
        { name: 'p99 latency', value: 850, unit: 'ms' },
      ],
    },
  };
  const failed: BenchOutcome = {
    bench: 'collector-throughput',
    status: 'failed',
    reason: 'exit code 1: boom',
    durationMs: 1,
  };
  const missing: BenchOutcome = {
    bench: 'anchor/compare',
    status: 'unavailable',
    reason: 'bench/anchor/compare.ts does not exist',
  };

  it('has one row per figure with median, spread, baseline, ratio, target and met', () => {
    assert.deepEqual(tableRows([ok])[0], [
      'ingest-throughput',
      'ingest rows/s',
      '66,000',
      '61,000–70,500 (3)',
      'rows/s',
      'writer-only 120,000',
      '0.55x',
      '≥ 100,000 rows/s',
      'NO',
    ]);
    assert.deepEqual(tableRows([ok])[1], ['ingest-throughput', 'p99 latency', '850', '', 'ms', '', '', '', '']);
  });

  it('leaves the spread empty for a single run', () => {
    const one: BenchOutcome = {
      bench: 'b',
      status: 'ok',
      durationMs: 1,
      report: { bench: 'b', figures: [{ name: 'x', value: 5, unit: 'ms', min: 5, max: 5, runs: 1 }] },
    };
    assert.equal(tableRows([one])[0]?.[3], '');
  });

  it('shows a failed bench as one FAILED row with its reason and an absent one as not available', () => {
    const text = formatTable([ok, failed, missing]);
    const lines = text.split('\n');
    assert.match(lines[0] ?? '', /^bench\s+figure\s+median\s+min–max\s+unit\s+baseline\s+ratio\s+target\s+met$/);
    assert.ok(lines.some((l) => /^collector-throughput\s+FAILED: exit code 1: boom$/.test(l)));
    assert.ok(lines.some((l) => /^anchor\/compare\s+not available: bench\/anchor\/compare.ts does not exist$/.test(l)));
  });

  it('pads the bench column to the longest bench name, failed ones included', () => {
    const lines = formatTable([failed]).split('\n');
    assert.equal(lines[0]?.indexOf('figure'), lines[2]?.indexOf('FAILED'));
  });

  it('aligns the columns of figure rows under the header', () => {
    const lines = formatTable([ok]).split('\n');
    const unitCol = lines[0]?.indexOf('unit');
    assert.equal(lines[2]?.indexOf('rows/s  writer-only'), unitCol);
    assert.equal(lines[3]?.indexOf('ms'), unitCol);
  });
});

describe('selectBenches', () => {
  it('runs every bench without --only, and only the named ones in the canonical order with it', () => {
    assert.equal(selectBenches(undefined).length, BENCHES.length);
    assert.deepEqual(
      selectBenches('detector-evaluation,digest-overhead').map((b) => b.name),
      ['digest-overhead', 'detector-evaluation'],
    );
  });

  it('rejects an unknown bench name, listing the known ones', () => {
    assert.throws(() => selectBenches('nope'), /unknown bench nope \(known: .*digest-overhead/);
  });
});
