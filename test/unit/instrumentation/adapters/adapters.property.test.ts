/** Properties every adapter keeps, on generated responses (fast-check). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ToolResultSchema } from '../../../../contract/index.ts';
import {
  awsPagination,
  elasticsearchSearch,
  githubSearch,
  googleList,
  kubernetesList,
  linkHeader,
  notionList,
  parseLinkHeader,
  relayConnection,
  slackCursor,
  sqlResult,
  stripeList,
} from '../../../../instrumentation/adapters/index.ts';
import { ADAPTER_CASES } from './fixtures/index.ts';

const RUNS = 200;
const items = fc.array(fc.record({ id: fc.string() }), { maxLength: 8 });
const token = fc.string({ minLength: 1, maxLength: 20 });
const cursorOf = (r: { completeness: { continuation: { kind: string; cursor?: string } } }) =>
  r.completeness.continuation.kind === 'next_cursor' ? r.completeness.continuation.cursor : undefined;

test('no adapter throws or emits an invalid envelope, whatever it is given', () => {
  fc.assert(
    fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true }), (value) => {
      for (const { adapter } of ADAPTER_CASES) {
        const r = adapter.read(value);
        assert.ok(ToolResultSchema.safeParse(r).success, adapter.name);
      }
    }),
    { numRuns: RUNS },
  );
});

test('no adapter calls a response complete after its own option getters throw', () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('boom');
      },
      has() {
        throw new Error('boom');
      },
      ownKeys() {
        throw new Error('boom');
      },
    },
  );
  for (const { adapter } of ADAPTER_CASES) {
    const r = adapter.read(hostile);
    assert.equal(r.completeness.complete, false, adapter.name);
    assert.equal(r.completeness.reasons[0]?.code, 'COMPLETENESS_UNKNOWN', adapter.name);
  }
});

test('a Link header with rel="next" is never complete, and its URL is the cursor, among any other links', () => {
  const rel = fc.constantFrom('prev', 'first', 'last', 'self', 'alternate');
  fc.assert(
    fc.property(items, fc.array(rel, { maxLength: 3 }), fc.nat({ max: 3 }), fc.webUrl(), (data, others, at, url) => {
      const links = others.map((r) => `<https://x.example/${r}?page=1>; rel="${r}"`);
      links.splice(Math.min(at, links.length), 0, `<${url}>; rel=next`);
      const r = linkHeader.read({ status: 200, headers: { Link: links.join(', ') }, data });
      assert.equal(r.completeness.complete, false);
      assert.equal(cursorOf(r), url);
      assert.equal(r.items?.length, data.length);
    }),
    { numRuns: RUNS },
  );
});

test('the Link parser reads back every link it is given, commas and semicolons in quotes included', () => {
  const param = fc.string({ maxLength: 10 }).map((s) => s.replace(/["\\]/g, ''));
  const link = fc.record({
    url: fc.webUrl({ withQueryParameters: true }).map((u) => u.replace(/[<>]/g, '')),
    rels: fc.uniqueArray(fc.constantFrom('next', 'prev', 'last', 'first'), { minLength: 1, maxLength: 2 }),
    title: param,
  });
  fc.assert(
    fc.property(fc.array(link, { maxLength: 4 }), (links) => {
      const text = links.map((l) => `<${l.url}>; title="${l.title}, ;x"; rel="${l.rels.join(' ')}"`).join(' , ');
      const parsed = parseLinkHeader(text);
      assert.deepEqual(
        parsed.map((p) => ({ url: p.url, rels: p.rels })),
        links.map((l) => ({ url: l.url.trim(), rels: l.rels })),
      );
    }),
    { numRuns: RUNS },
  );
});

test('a GitHub search with incomplete_results is never complete', () => {
  fc.assert(
    fc.property(items, fc.nat(), (list, total) => {
      const r = githubSearch.read({
        status: 200,
        headers: {},
        data: { total_count: total, incomplete_results: true, items: list },
      });
      assert.equal(r.completeness.complete, false);
      assert.ok(r.completeness.reasons.some((x) => x.code === 'TIME_BUDGET_EXCEEDED'));
    }),
    { numRuns: RUNS },
  );
});

test('a Relay connection with hasNextPage is never complete', () => {
  fc.assert(
    fc.property(items, fc.option(token), fc.boolean(), (nodes, endCursor, asEdges) => {
      const conn = asEdges
        ? { edges: nodes.map((node) => ({ node, cursor: 'c' })), pageInfo: { hasNextPage: true, endCursor } }
        : { nodes, pageInfo: { hasNextPage: true, endCursor } };
      const r = relayConnection.read(conn);
      assert.equal(r.completeness.complete, false);
      assert.equal(cursorOf(r), endCursor ?? undefined);
      assert.equal(r.items?.length, nodes.length);
    }),
    { numRuns: RUNS },
  );
});

test('a Kubernetes chunk with a continue token is never complete and keeps its resourceVersion', () => {
  fc.assert(
    fc.property(items, token, token, fc.option(fc.nat()), (list, cont, rv, remaining) => {
      const metadata = {
        resourceVersion: rv,
        continue: cont,
        ...(remaining === null ? {} : { remainingItemCount: remaining }),
      };
      const r = kubernetesList.read({ kind: 'SecretList', apiVersion: 'v1', metadata, items: list });
      assert.equal(r.completeness.complete, false);
      assert.equal(cursorOf(r), cont);
      assert.equal(r.scope?.snapshot, rv);
    }),
    { numRuns: RUNS },
  );
});

test('an Elasticsearch response that timed out or lost a shard is never complete', () => {
  fc.assert(
    fc.property(
      items,
      fc.boolean(),
      fc.nat({ max: 5 }),
      fc.constantFrom('eq', 'gte'),
      (hits, timedOut, failed, relation) => {
        fc.pre(timedOut || failed > 0);
        const r = elasticsearchSearch.read(
          {
            took: 1,
            timed_out: timedOut,
            _shards: { total: 5, successful: 5 - failed, skipped: 0, failed },
            hits: { total: { value: hits.length, relation }, hits },
          },
          { size: 10 },
        );
        assert.equal(r.completeness.complete, false);
        assert.equal(r.items?.length, hits.length);
      },
    ),
    { numRuns: RUNS },
  );
});

test('an AWS output carrying any known next token, or IsTruncated, is never complete', () => {
  const field = fc.constantFrom(
    'NextToken',
    'NextContinuationToken',
    'NextMarker',
    'nextToken',
    'NextPageToken',
    'LastEvaluatedKey',
  );
  fc.assert(
    fc.property(items, field, token, (list, f, t) => {
      const value = f === 'LastEvaluatedKey' ? { pk: { S: t } } : t;
      const r = awsPagination.read({ $metadata: {}, Items: list, [f]: value });
      assert.equal(r.completeness.complete, false);
      const next = awsPagination.pageParams(cursorOf(r), 10);
      assert.deepEqual(Object.values(next).at(-1), value, 'the next request carries the token back');
    }),
    { numRuns: RUNS },
  );
});

test('a Google list with unreachable locations is never complete and names each one', () => {
  fc.assert(
    fc.property(
      items,
      fc.uniqueArray(token, { minLength: 1, maxLength: 4 }),
      fc.option(token),
      (list, unreachable, next) => {
        const r = googleList.read({ instances: list, unreachable, ...(next ? { nextPageToken: next } : {}) });
        assert.equal(r.completeness.complete, false);
        for (const u of unreachable) assert.ok(r.completeness.reasons.some((x) => x.source === u));
      },
    ),
    { numRuns: RUNS },
  );
});

test('a Slack page with a non-empty next_cursor is never complete', () => {
  fc.assert(
    fc.property(items, token, (list, next) => {
      const r = slackCursor.read({ ok: true, members: list, response_metadata: { next_cursor: next } });
      assert.equal(r.completeness.complete, false);
      assert.equal(cursorOf(r), next);
    }),
    { numRuns: RUNS },
  );
});

test('a Notion page with request_status incomplete is never complete, whatever has_more says', () => {
  fc.assert(
    fc.property(items, fc.boolean(), fc.option(token), (list, hasMore, next) => {
      const r = notionList.read({
        object: 'list',
        results: list,
        has_more: hasMore,
        next_cursor: next,
        request_status: { type: 'incomplete', incomplete_reason: 'query_result_limit_reached' },
      });
      assert.equal(r.completeness.complete, false);
      assert.ok(r.completeness.reasons.some((x) => x.code === 'RESULT_LIMIT_REACHED'));
    }),
    { numRuns: RUNS },
  );
});

test('a Stripe list with has_more is never complete', () => {
  fc.assert(
    fc.property(items, (list) => {
      const r = stripeList.read({ object: 'list', url: '/v1/charges', has_more: true, data: list });
      assert.equal(r.completeness.complete, false);
    }),
    { numRuns: RUNS },
  );
});

test('the SQL probe is complete exactly when at most limit rows came back, and never returns the probe row', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ id: fc.nat() }), { maxLength: 12 }),
      fc.integer({ min: 0, max: 10 }),
      (rows, limit) => {
        const r = sqlResult.read({ rows }, { limit });
        assert.equal(r.completeness.complete, rows.length <= limit);
        assert.equal(r.items?.length, Math.min(rows.length, limit));
      },
    ),
    { numRuns: RUNS },
  );
});
