import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  Attr,
  CONTINUATION_KINDS,
  EFFECTS,
  GenAi,
  GUARD_DECISIONS,
  GUARD_FINDING_CODES,
  GuardUnenforcedEvent,
  MUTATION_BASES,
  OtelAttr,
  PIPELINE_WARNING_CODES,
  REASON_CODES,
  RESULT_STATUSES,
  SEMCONV_VERSION,
  TRAVERSAL_BREAKS,
  WARNING_CODES,
  WarningEvent,
} from '../../../contract/index.ts';

const doc = readFileSync(new URL('../../../docs/semantic-conventions.md', import.meta.url), 'utf8');
const documented = (name: string) => doc.includes(`\`${name}\``);

test('the semantic-conventions page states the version the spans carry', () => {
  assert.match(doc, new RegExp(`\\*\\*Version ${SEMCONV_VERSION.replaceAll('.', '\\.')}\\*\\*`));
  assert.ok(doc.includes(`**${SEMCONV_VERSION}**`), 'the changelog has an entry for this version');
});

test('the semantic-conventions page documents every attribute', () => {
  for (const name of [...Object.values(Attr), ...Object.values(GenAi), ...Object.values(OtelAttr)]) {
    assert.ok(documented(name), name);
  }
});

test('the semantic-conventions page documents the warning event and its attributes', () => {
  for (const name of Object.values(WarningEvent)) assert.ok(documented(name), name);
});

test('the semantic-conventions page documents the guard-unenforced event and every guard finding code', () => {
  for (const name of [...Object.values(GuardUnenforcedEvent), ...GUARD_FINDING_CODES]) {
    assert.ok(documented(name), name);
  }
});

test('the semantic-conventions page documents every code and enumerated value', () => {
  const all = [
    ...REASON_CODES,
    ...WARNING_CODES,
    ...PIPELINE_WARNING_CODES,
    ...CONTINUATION_KINDS,
    ...RESULT_STATUSES,
    ...EFFECTS,
    ...MUTATION_BASES,
    ...GUARD_DECISIONS,
    ...TRAVERSAL_BREAKS,
  ];
  for (const code of all) assert.ok(documented(code), code);
});
