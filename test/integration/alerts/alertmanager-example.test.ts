/**
 * alerts/examples/alertmanager.yml is a valid Alertmanager config (checked by Alertmanager's own amtool) and
 * routes tooltrail's labels where its comments say: by team, then owner, with escalation for the unowned.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const CONFIG = fileURLToPath(new URL('../../../alerts/examples/alertmanager.yml', import.meta.url));

function amtool(args: string[]): string {
  const r = spawnSync('amtool', args, { encoding: 'utf8' });
  if (r.error) throw new Error(`amtool is needed (it ships with prometheus-alertmanager): ${r.error.message}`);
  assert.equal(r.status, 0, `amtool ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout.trim();
}

const route = (...labels: string[]) => amtool(['config', 'routes', 'test', `--config.file=${CONFIG}`, ...labels]);

describe('Alertmanager configuration example', () => {
  it('passes amtool check-config', () => {
    assert.match(amtool(['check-config', CONFIG]), /SUCCESS/);
  });

  it("routes by team (critical to the team's pager), then by owner, and escalates what nobody owns", () => {
    const mutation = ['alertname=MutationAfterIncompleteRead', 'tenant=acme'];
    assert.equal(route(...mutation, 'severity=critical', 'team=identity', 'owner=iam-oncall'), 'identity-pager');
    assert.equal(route(...mutation, 'severity=warning', 'team=identity', 'owner=iam-oncall'), 'identity-chat');
    assert.equal(route(...mutation, 'severity=warning', 'team=finance', 'owner=fx'), 'finance-chat');
    assert.equal(route(...mutation, 'severity=warning', 'owner=someone'), 'owner-router');
    assert.equal(route(...mutation, 'severity=critical'), 'escalation-pager');
    assert.equal(route(...mutation, 'severity=warning'), 'escalation');
    assert.equal(route('alertname=PersistentUnownedWarning', 'severity=warning', 'tenant=acme'), 'warning-triage');
    assert.equal(route('alertname=WarningRetirementProposed', 'severity=info', 'owner=x', 'team=identity'), 'tickets');
  });
});
