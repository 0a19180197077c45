/**
 * How scripts/test.js splits a run into lanes side by side, and keeps their output readable: which lane a file
 * belongs to, the default plan and its knobs, one lane's lines at a time, and node's per-process summaries held
 * back for the one summary of the run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { laneOf, planLanes, SELF_CONTAINED_MARKER } from '../../../scripts/test-lanes.js';
import { LaneOutput, SummaryFilter, summaryLines } from '../../../scripts/test-output.js';

const MARKED = `/**\n * A soak.\n */\n${SELF_CONTAINED_MARKER} (its own Kafka)\nimport x from 'y';\n`;

describe('the lane of a test file', () => {
  it('is self-contained when its head carries the marker, in any folder', () => {
    assert.equal(laneOf('test/e2e/soak.test.ts', MARKED), 'self-contained');
    assert.equal(laneOf('test/unit/odd.test.ts', MARKED), 'self-contained');
  });

  it('is unit under test/unit/, shared elsewhere; the marker counts only at the start of a line', () => {
    assert.equal(laneOf('test/unit/a.test.ts', ''), 'unit');
    assert.equal(laneOf('test/integration/a.test.ts', ''), 'shared');
    assert.equal(laneOf('test/integration/a.test.ts', `const s = '${SELF_CONTAINED_MARKER}';`), 'shared');
  });
});

describe('the plan of a run', () => {
  const files = ['test/integration/a.test.ts', 'test/unit/b.test.ts', 'test/e2e/soak.test.ts', 'test/e2e/x.test.ts'];
  const headOf = (f: string) => (f.includes('soak') || f.includes('x.test') ? MARKED : '');
  const shape = (env: NodeJS.ProcessEnv, of = files) => {
    const { lanes, pool } = planLanes(of, headOf, env);
    return {
      lanes: lanes.map((l) => `${l.name}: ${l.stages.map((s) => `${s.kind}:${s.files.join('+')}@${s.concurrency}`)}`),
      pool,
    };
  };

  it('by default runs the shared files one at a time and beside them the unit files two at a time; the self-contained go to whichever lane is free', () => {
    assert.deepEqual(shape({}), {
      lanes: ['shared: shared:test/integration/a.test.ts@1', 'unit: unit:test/unit/b.test.ts@2'],
      pool: ['test/e2e/soak.test.ts', 'test/e2e/x.test.ts'],
    });
  });

  it('takes its concurrencies from the environment, and TOOLTRAIL_TEST_LANES=sequential makes one lane', () => {
    assert.deepEqual(shape({ TOOLTRAIL_TEST_CONCURRENCY: '3', TOOLTRAIL_TEST_UNIT_CONCURRENCY: '4' }).lanes, [
      'shared: shared:test/integration/a.test.ts@3',
      'unit: unit:test/unit/b.test.ts@4',
    ]);
    assert.deepEqual(shape({ TOOLTRAIL_TEST_LANES: 'sequential' }), {
      lanes: ['unit then shared: unit:test/unit/b.test.ts@2,shared:test/integration/a.test.ts@1'],
      pool: ['test/e2e/soak.test.ts', 'test/e2e/x.test.ts'],
    });
  });

  it('leaves out a lane with no files, and fills the width with lanes that take self-contained files at once', () => {
    assert.deepEqual(shape({}, ['test/unit/b.test.ts']), { lanes: ['unit: unit:test/unit/b.test.ts@2'], pool: [] });
    assert.deepEqual(shape({}, ['test/integration/a.test.ts', 'test/e2e/soak.test.ts']).lanes, [
      'shared: shared:test/integration/a.test.ts@1',
      'self-contained: ',
    ]);
    assert.deepEqual(shape({}, ['test/e2e/soak.test.ts']).lanes, ['self-contained: ']);
    assert.deepEqual(shape({}, ['test/e2e/soak.test.ts', 'test/e2e/x.test.ts']).lanes, [
      'self-contained: ',
      'self-contained: ',
    ]);
    assert.deepEqual(
      shape({ TOOLTRAIL_TEST_LANES: 'sequential' }, ['test/e2e/soak.test.ts', 'test/e2e/x.test.ts']).lanes,
      ['self-contained: '],
    );
  });

  it('refuses a bad setting, naming the variable', () => {
    assert.throws(() => shape({ TOOLTRAIL_TEST_CONCURRENCY: '0' }), /^Error: TOOLTRAIL_TEST_CONCURRENCY must be/);
    assert.throws(() => shape({ TOOLTRAIL_TEST_UNIT_CONCURRENCY: 'two' }), /TOOLTRAIL_TEST_UNIT_CONCURRENCY/);
    assert.throws(() => shape({ TOOLTRAIL_TEST_LANES: 'all' }), /TOOLTRAIL_TEST_LANES must be parallel or sequential/);
  });
});

/** An output of three lanes, recording the lines it shows. */
function threeLanes() {
  const out: string[] = [];
  const o = new LaneOutput((l) => out.push(l));
  return { out, o, a: o.lane(), b: o.lane(), c: o.lane() };
}

describe('the output of lanes side by side', () => {
  it('streams the first lane and shows each other lane whole, in order, once the live one ended', () => {
    const { out, a, b, c } = threeLanes();
    a.line('A');
    b.line('B');
    a.line('a1');
    b.line('b1');
    c.line('c1');
    b.end();
    a.line('a2');
    assert.deepEqual(out, ['A', 'a1', 'a2'], 'nothing of the waiting lanes yet');
    a.end();
    assert.deepEqual(out, ['A', 'a1', 'a2', 'B', 'b1', 'c1'], 'the ended lane whole, then the next one goes live');
    c.line('c2');
    c.end();
    assert.deepEqual(out.slice(-1), ['c2']);
  });
});

describe('the output of a run being stopped', () => {
  it('shows every waiting lane at once, and the live lane keeps streaming', () => {
    const { out, o, a, b, c } = threeLanes();
    a.line('a1');
    b.line('b1');
    c.line('c1');
    o.flush();
    assert.deepEqual(out, ['a1', 'b1', 'c1']);
    a.line('a2');
    assert.deepEqual(out.slice(-1), ['a2']);
  });
});

describe("node's summary of each runner process", () => {
  const SUMMARY = ['tests 3', 'suites 1', 'pass 2', 'fail 1', 'cancelled 0', 'skipped 0', 'todo 0', 'duration_ms 12.5'];

  it('is held back when it closes the output, and its figures returned', () => {
    const f = new SummaryFilter();
    const shown = ['✔ a (1ms)', ...SUMMARY.map((s) => `ℹ ${s}`)].flatMap((l) => f.push(l));
    assert.deepEqual(shown, ['✔ a (1ms)']);
    assert.deepEqual(f.end(), {
      lines: [],
      summary: { tests: 3, suites: 1, pass: 2, fail: 1, cancelled: 0, skipped: 0, todo: 0, duration_ms: 12.5 },
    });
  });

  it('is taken when the list of failing tests follows it, which is shown', () => {
    const f = new SummaryFilter();
    const shown = [...SUMMARY.map((s) => `ℹ ${s}`), '✖ failing tests:', '✖ b (2ms)'].flatMap((l) => f.push(l));
    assert.deepEqual(shown, ['✖ failing tests:', '✖ b (2ms)']);
    assert.equal(f.end().summary?.fail, 1);
  });

  it('lines of its shape that something else follows are shown, not taken for it', () => {
    const f = new SummaryFilter();
    const shown = ['ℹ tests 3', 'ℹ suites 1', 'ℹ a diagnostic'].flatMap((l) => f.push(l));
    assert.deepEqual(shown, ['ℹ tests 3', 'ℹ suites 1', 'ℹ a diagnostic']);
    assert.deepEqual(f.push('ℹ tests 4'), []);
    assert.deepEqual(f.end(), { lines: ['ℹ tests 4'], summary: undefined });
  });

  it('adds up over the processes into one summary, with the run wall time', () => {
    assert.deepEqual(
      summaryLines(
        [
          { tests: 3, pass: 3 },
          { tests: 2, pass: 1, fail: 1 },
        ],
        99,
      ),
      [
        'ℹ tests 5',
        'ℹ suites 0',
        'ℹ pass 4',
        'ℹ fail 1',
        'ℹ cancelled 0',
        'ℹ skipped 0',
        'ℹ todo 0',
        'ℹ duration_ms 99',
      ],
    );
  });
});
