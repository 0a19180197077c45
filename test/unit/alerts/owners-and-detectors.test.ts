import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DETECTOR_NAMES, loadDetector, runDetector } from '../../../alerts/detectors/load.ts';
import { chTimeToIso } from '../../../alerts/detectors/rows.ts';
import { fingerprint } from '../../../alerts/findings/fingerprint.ts';
import { OwnerDirectory } from '../../../alerts/owners/resolve.ts';
import type { OwnerAssignment } from '../../../alerts/owners/store.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';

const assignment = (o: Partial<OwnerAssignment>): OwnerAssignment => ({
  tenant: '',
  kind: 'tool',
  subject: '',
  source: '',
  owner: '',
  team: '',
  assigned_at: '2026-01-01T00:00:00.000Z',
  assigned_by: 'alice',
  reason: 'r',
  ...o,
});

describe('owner resolution', () => {
  const dir = new OwnerDirectory([
    assignment({ subject: 'delete_accounts', owner: 'iam-global' }),
    assignment({ tenant: 'acme', subject: 'delete_accounts', owner: 'iam-acme' }),
    assignment({ kind: 'agent', subject: 'cleaner', owner: 'agents-team' }),
    assignment({ kind: 'warning', subject: '*', source: 'accounts-index', owner: 'search-infra' }),
    assignment({ kind: 'warning', subject: 'STALE_INDEX', source: 'accounts-index', owner: 'index-owner' }),
  ]);

  it("prefers the tenant's own assignment over the every-tenant one", () => {
    assert.equal(dir.forMutation('acme', 'delete_accounts', 'cleaner')?.owner, 'iam-acme');
    assert.equal(dir.forMutation('globex', 'delete_accounts', 'cleaner')?.owner, 'iam-global');
  });

  it("falls back from the mutation tool's owner to the agent's owner, then to nobody", () => {
    assert.equal(dir.forMutation('acme', 'archive', 'cleaner')?.owner, 'agents-team');
    assert.equal(dir.forMutation('acme', 'archive', 'janitor'), null);
    assert.equal(dir.forMutation('acme', '', ''), null);
  });

  it('resolves a warning to its (code, source) owner, else to the owner of every code of that source', () => {
    assert.equal(dir.forWarning('acme', 'STALE_INDEX', 'accounts-index')?.owner, 'index-owner');
    assert.equal(dir.forWarning('acme', 'PARTIAL_FIELD_SET', 'accounts-index')?.owner, 'search-infra');
    assert.equal(dir.forWarning('acme', 'STALE_INDEX', 'other-index'), null);
  });
});

describe('detector files', () => {
  for (const name of DETECTOR_NAMES) {
    it(`${name}.sql states its rule and binds every value it uses`, () => {
      const d = loadDetector(name);
      assert.match(d.rule, new RegExp(`Detector: ${name}`));
      assert.match(d.rule, /Rule:/);
      assert.equal(d.params.get('database'), 'Identifier');
      assert.equal(d.params.get('tenant'), 'String');
      assert.doesNotMatch(d.sql, /\$\{/, 'no template interpolation');
    });
  }

  it('refuses to run with a missing or unknown parameter, before any query', async () => {
    const ch = {
      query: () => {
        throw new Error('must not query');
      },
    } as unknown as ClickHouseClient;
    await assert.rejects(
      runDetector(ch, 'dangerous_empty_reads', {
        database: 'db',
        tenant: '',
        since: new Date(),
        until: new Date(),
        min_count: 1,
        min_rat: 0.1,
      }),
      /missing parameters min_rate; unknown parameters min_rat/,
    );
  });
});

describe('fingerprints and times', () => {
  it('are stable for the same finding and differ by kind, tenant and identity', () => {
    const a = fingerprint('mutation_after_incomplete_read', 'acme', 'trace', 'span');
    assert.equal(a, fingerprint('mutation_after_incomplete_read', 'acme', 'trace', 'span'));
    assert.match(a, /^[0-9a-f]{16}$/);
    assert.notEqual(a, fingerprint('absence_mutation_without_complete_evidence', 'acme', 'trace', 'span'));
    assert.notEqual(a, fingerprint('mutation_after_incomplete_read', 'globex', 'trace', 'span'));
    assert.notEqual(
      fingerprint('dangerous_empty_reads', 'a', 'b|c', 'd'),
      fingerprint('dangerous_empty_reads', 'a', 'b', 'c|d'),
    );
  });

  it("reads ClickHouse's DateTime64 text as UTC", () => {
    assert.equal(chTimeToIso('2026-01-02 03:04:05.123456789'), '2026-01-02T03:04:05.123Z');
    assert.equal(chTimeToIso('2026-01-02 03:04:05'), '2026-01-02T03:04:05.000Z');
    assert.throws(() => chTimeToIso('yesterday'), /not a ClickHouse DateTime/);
  });
});
