import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AlertsConfigError,
  alertsConfigFromEnv,
  defaultAlertsConfig,
  parseAlertsConfig,
} from '../../../alerts/config.ts';
import { formatDuration, parseDurationSeconds } from '../../../alerts/duration.ts';

const AM = 'http://127.0.0.1:9193';

describe('alerts configuration', () => {
  it('defaults are valid', () => {
    assert.deepEqual(parseAlertsConfig(defaultAlertsConfig(AM)), defaultAlertsConfig(AM));
  });

  it('pages at once by default, and the --pending-period flag wins over the environment', () => {
    assert.equal(defaultAlertsConfig(AM).pendingSeconds, 0);
    const c = alertsConfigFromEnv({ TOOLTRAIL_ALERTS_PENDING_PERIOD: '5m' }, AM, { pendingSeconds: 30 });
    assert.equal(c.pendingSeconds, 30);
  });

  it('reads durations, numbers and booleans from the environment', () => {
    const c = alertsConfigFromEnv(
      {
        TOOLTRAIL_ALERTS_INTERVAL: '30s',
        TOOLTRAIL_ALERTS_MUTATION_WINDOW: '2h',
        TOOLTRAIL_ALERTS_PENDING_PERIOD: '2m',
        TOOLTRAIL_WARNINGS_WINDOW_DAYS: '60',
        TOOLTRAIL_WARNINGS_AUTO_RETIRE: 'true',
        TOOLTRAIL_RECONSTRUCT_URL: 'http://grafana:3000/reconstruct/session/{session}',
      },
      AM,
    );
    assert.equal(c.intervalSeconds, 30);
    assert.equal(c.mutationWindowSeconds, 7200);
    assert.equal(c.pendingSeconds, 120);
    assert.equal(c.warnings.windowDays, 60);
    assert.equal(c.warnings.autoRetire, true);
    assert.equal(c.reconstructUrl, 'http://grafana:3000/reconstruct/session/{session}');
  });

  it('reports every bad key at once, each by name', () => {
    assert.throws(
      () =>
        alertsConfigFromEnv(
          {
            TOOLTRAIL_ALERTS_INTERVAL: 'soon',
            TOOLTRAIL_WARNINGS_AUTO_RETIRE: 'maybe',
            TOOLTRAIL_WARNINGS_WINDOW_DAYS: 'x',
          },
          AM,
        ),
      (err: Error) =>
        err instanceof AlertsConfigError &&
        /TOOLTRAIL_ALERTS_INTERVAL/.test(err.message) &&
        /TOOLTRAIL_WARNINGS_AUTO_RETIRE/.test(err.message) &&
        /TOOLTRAIL_WARNINGS_WINDOW_DAYS/.test(err.message),
    );
    assert.throws(
      () =>
        parseAlertsConfig({
          ...defaultAlertsConfig(AM),
          intervalSeconds: 0,
          warnings: { ...defaultAlertsConfig(AM).warnings, minDaysFraction: 2 },
        }),
      /alerts\.intervalSeconds.*alerts\.warnings\.minDaysFraction/,
    );
  });

  it('keeps the alert TTL above the interval unless set explicitly', () => {
    assert.equal(alertsConfigFromEnv({}, AM, { intervalSeconds: 600 }).alertTtlSeconds, 2400);
    assert.throws(
      () => alertsConfigFromEnv({ TOOLTRAIL_ALERTS_ALERT_TTL: '60s' }, AM, { intervalSeconds: 120 }),
      /alerts\.alertTtlSeconds: must exceed intervalSeconds/,
    );
  });

  it('renews unchanged alerts at half the TTL by default, and refuses a refresh that lets an alert lapse', () => {
    const c = alertsConfigFromEnv({}, AM, { intervalSeconds: 600 });
    assert.equal(c.alertRefreshSeconds, 1200);
    assert.equal(alertsConfigFromEnv({ TOOLTRAIL_ALERTS_REFRESH_BATCH: '50' }, AM).alertRefreshBatch, 50);
    assert.throws(
      () => alertsConfigFromEnv({ TOOLTRAIL_ALERTS_ALERT_TTL: '5m', TOOLTRAIL_ALERTS_REFRESH_INTERVAL: '270s' }, AM),
      /alerts\.alertRefreshSeconds: plus intervalSeconds \(60\) must stay below alertTtlSeconds \(300\)/,
    );
  });

  it('parses and prints durations', () => {
    assert.equal(parseDurationSeconds('90d'), 90 * 86_400);
    assert.equal(parseDurationSeconds('1.5h'), 5400);
    assert.equal(parseDurationSeconds('45'), 45);
    assert.throws(() => parseDurationSeconds('3 weeks'), /invalid duration "3 weeks"/);
    assert.equal(formatDuration(86_400), '1d');
    assert.equal(formatDuration(5400), '90m');
  });
});
