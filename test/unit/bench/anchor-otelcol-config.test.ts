import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promCounter } from '../../../bench/anchor/otelcol-config.ts';

test('promCounter sums a counter over its label sets, with or without _total, and ignores look-alike names', () => {
  const text = [
    '# HELP otelcol_exporter_sent_spans_total Number of spans successfully sent',
    '# TYPE otelcol_exporter_sent_spans_total counter',
    'otelcol_exporter_sent_spans_total{exporter="kafka",service_name="otelcol-anchor"} 1024',
    'otelcol_exporter_sent_spans_total{exporter="kafka",service_name="other"} 2.048e+03',
    'otelcol_exporter_sent_spans_bytes_total{exporter="kafka"} 99999',
    'otelcol_exporter_send_failed_spans_total{exporter="kafka"} 7',
    'tooltrail_collector_spans_accepted_total 5',
  ].join('\n');
  assert.equal(promCounter(text, 'otelcol_exporter_sent_spans'), 3072);
  assert.equal(promCounter(text, 'tooltrail_collector_spans_accepted'), 5);
  assert.equal(promCounter(text, 'absent_metric'), 0);
});
