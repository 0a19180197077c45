// Runs under the Node 22 binary of this folder's `node` package, with this folder's current OpenTelemetry line
// (sdk-trace 3.x, api 1.10). Imports tooltrail's instrumentation from a staging copy whose bare imports resolve
// here (Node 22 strips the TypeScript types itself), makes a few tool calls, and prints the exported spans as JSON
// for test/integration/instrumentation/otel-current-line.test.ts to check.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';

const stage = process.argv[2];
if (!stage) throw new Error('usage: check-spans.mjs <staging dir>');
const lib = await import(pathToFileURL(join(stage, 'instrumentation/index.ts')).href);

const exporter = new InMemorySpanExporter();
// 3.x processors take an options object (2.x took the exporter itself).
const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
const tt = lib.createTooltrail({ tracerProvider: provider });
const session = tt.session({ conversationId: 'compat-1', agentName: 'compat-agent' });

const scope = { resource: 'service_accounts', visibility: 'readable by this credential', snapshot: 'snap-1' };
const pages = [
  lib.partialResult({
    items: [{ id: 'a' }],
    reasons: ['MORE_PAGES_AVAILABLE'],
    continuation: { kind: 'next_cursor', cursor: 'c2' },
    scope,
    warnings: [lib.warning('STALE_INDEX', 'accounts-index', 'lagging')],
  }),
  lib.completeResult({ items: [{ id: 'b' }], scope }),
];
const firstPage = tt.readTool('list_first_page', () => pages[0]);
const listAll = tt.readTool('list_all', () =>
  lib.collectAllPages({ fetchPage: async ({ pageIndex }) => pages[pageIndex], pageSize: 1 }),
);
const remove = tt.mutationTool('delete_accounts', () => lib.completeResult({ items: ['a'] }));
const broken = tt.readTool('broken', () => {
  throw new TypeError('boom');
});

const partial = await firstPage(session, { secret: 'not-recorded' }, { toolCallId: 'call-1' });
const refused = await remove(session, {}, { basis: 'absence', targets: ['z'], evidence: [partial] });
const complete = await listAll(session, {}, { toolCallId: 'call-3' });
const allowed = await remove(session, {}, { basis: 'presence', targets: ['a'], evidence: [complete] });
await broken(session, {}).catch(() => {});
await provider.forceFlush();

const version = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;
console.log(
  JSON.stringify({
    node: process.version,
    sdkTrace: version('@opentelemetry/sdk-trace'),
    api: version('@opentelemetry/api'),
    decisions: [refused.decision, allowed.decision],
    spans: exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      kind: s.kind,
      status: s.status,
      attributes: s.attributes,
      events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      scope: s.instrumentationScope,
    })),
  }),
);
await provider.shutdown();
