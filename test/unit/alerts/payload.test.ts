import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertAnnotations, alertLabels, sameAlert, toPostableAlert } from '../../../alerts/alertmanager/payload.ts';
import { minutesAgo, mutationFinding, NOW } from './fixtures.ts';

describe('Alertmanager payloads', () => {
  it('labels a finding with alertname, severity, owner, team, tenant, tool, agent and its fingerprint', () => {
    assert.deepEqual(alertLabels(mutationFinding()), {
      alertname: 'MutationAfterIncompleteRead',
      severity: 'critical',
      tenant: 'acme',
      fingerprint: '00000000000000a1',
      owner: 'iam-oncall',
      team: 'identity',
      tool: 'delete_accounts',
      agent: 'cleaner',
    });
  });

  it('omits the owner label when nobody owns the finding, so the escalation route takes it', () => {
    const labels = alertLabels(mutationFinding({ owner: null, team: null }));
    assert.equal('owner' in labels, false);
    assert.equal('team' in labels, false);
  });

  it('annotates the incomplete reasons, the evidence spans and the reconstruction command and link', () => {
    const a = alertAnnotations(
      mutationFinding({
        reconstruct: { command: 'tooltrail reconstruct --finding x', url: 'http://h/reconstruct/session/sess-1' },
      }),
    );
    assert.equal(a.reasons, 'MORE_PAGES_AVAILABLE, COMPLETENESS_UNKNOWN');
    assert.equal(a.evidence_spans, 'trace-1/span-r1 (list_accounts), trace-1/span-r2 (list_accounts)');
    assert.equal(a.reconstruct_command, 'tooltrail reconstruct --finding x');
    assert.equal(a.reconstruct_url, 'http://h/reconstruct/session/sess-1');
    assert.equal(a.mutation_span, 'trace-1/span-m');
    assert.equal(a.guard_decision, 'allowed');
  });

  it('sets generatorURL to the reconstruction link when one is configured', () => {
    const f = mutationFinding({ reconstruct: { command: 'c', url: 'http://h/r' } });
    assert.equal(toPostableAlert(f, minutesAgo(5), NOW).generatorURL, 'http://h/r');
    assert.equal('generatorURL' in toPostableAlert(mutationFinding(), minutesAgo(5), NOW), false);
  });

  it('keeps the label set independent of when and how often the finding was sent', () => {
    const a = toPostableAlert(mutationFinding({ summary: 'one' }), minutesAgo(50), minutesAgo(1));
    const b = toPostableAlert(mutationFinding({ summary: 'two' }), minutesAgo(5), NOW);
    assert.deepEqual(a.labels, b.labels);
    assert.equal(sameAlert(mutationFinding(), mutationFinding({ summary: 'changed' })), true);
    assert.equal(sameAlert(mutationFinding(), mutationFinding({ severity: 'warning' })), false);
  });
});
