/** The all-pages collector reads raw API pages through an adapter. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  kubernetesList,
  linkHeader,
  notionList,
  sqlResult,
  withOptions,
} from '../../../../instrumentation/adapters/index.ts';
import { collectAllPages } from '../../../../instrumentation/pager.ts';

const issues = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }));

/** An Octokit-shaped `issues.list`: page/per_page in, `{ status, headers: { link }, data }` out. */
function fakeIssuesList(calls: Record<string, unknown>[]) {
  return async (params: { owner: string; repo: string; page?: number; per_page?: number }) => {
    calls.push(params);
    const size = params.per_page ?? 30;
    const page = params.page ?? 1;
    const data = issues.slice((page - 1) * size, page * size);
    const last = Math.ceil(issues.length / size);
    const base = `https://api.github.com/repos/${params.owner}/${params.repo}/issues?state=open&per_page=${size}`;
    const link = page < last ? `<${base}&page=${page + 1}>; rel="next", <${base}&page=${last}>; rel="last"` : '';
    return { status: 200, url: base, headers: link ? { link } : {}, data };
  };
}

test('collectAllPages(list, { adapter: linkHeader }) follows rel="next" with the call\'s own parameters', async () => {
  const calls: Record<string, unknown>[] = [];
  const r = await collectAllPages(fakeIssuesList(calls), {
    adapter: linkHeader,
    params: { owner: 'octo', repo: 'hello' },
    pageSize: 3,
    requireSnapshot: false,
  });
  assert.equal(r.status, 'complete');
  assert.deepEqual(r.items, issues);
  assert.deepEqual(
    calls.map((c) => [c.owner, c.repo, c.page, c.per_page]),
    [
      ['octo', 'hello', undefined, 3],
      ['octo', 'hello', 2, 3],
      ['octo', 'hello', 3, 3],
    ],
  );
});

test('Link pages carry no snapshot, so a multi-page GitHub scan is not complete unless declared stable', async () => {
  const r = await collectAllPages(fakeIssuesList([]), {
    adapter: linkHeader,
    params: { owner: 'o', repo: 'r' },
    pageSize: 3,
  });
  assert.equal(r.completeness.complete, false);
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['COMPLETENESS_UNKNOWN'],
  );
  assert.equal(r.items?.length, 7);
});

test('a rate-limit error thrown mid-scan keeps its reason and wait through the adapter', async () => {
  let n = 0;
  const list = async (params: { page?: number }) => {
    n += 1;
    if (n === 2) {
      throw Object.assign(new Error('API rate limit exceeded'), {
        status: 403,
        response: { status: 403, headers: { 'x-ratelimit-remaining': '0', 'retry-after': '17' }, data: {} },
      });
    }
    return {
      status: 200,
      headers: { link: '<https://api.github.com/x?page=2>; rel="next"' },
      data: [{ id: params.page ?? 1 }],
    };
  };
  const r = await collectAllPages(list, { adapter: linkHeader, pageSize: 1 });
  assert.equal(r.status, 'partial');
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['RATE_LIMITED'],
  );
  assert.deepEqual(r.completeness.continuation, { kind: 'retry_after', after_seconds: 17 });
});

test('Kubernetes chunks at one resourceVersion are complete, with the snapshot', async () => {
  const pods = Array.from({ length: 5 }, (_, i) => ({ metadata: { name: `p${i}` } }));
  const list = async (p: { limit: number; _continue?: string }) => {
    const start = p._continue ? Number(p._continue) : 0;
    const end = start + p.limit;
    return {
      kind: 'PodList',
      metadata: { resourceVersion: '77', continue: end < pods.length ? String(end) : '' },
      items: pods.slice(start, end),
    };
  };
  const r = await collectAllPages(list, { adapter: kubernetesList, pageSize: 2 });
  assert.equal(r.status, 'complete');
  assert.equal(r.items?.length, 5);
  assert.equal(r.scope?.snapshot, '77');
});

test('a 410 Expired thrown by the Kubernetes client ends the scan with CURSOR_EXPIRED and no restart', async () => {
  const list = async (p: { _continue?: string }) => {
    if (p._continue)
      throw Object.assign(new Error('HTTP 410'), {
        code: 410,
        body: { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: 'too old' },
      });
    return { kind: 'PodList', metadata: { resourceVersion: '9', continue: 'c1' }, items: [{}] };
  };
  const r = await collectAllPages(list, { adapter: kubernetesList, pageSize: 1 });
  assert.equal(r.status, 'partial');
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['CURSOR_EXPIRED'],
  );
  assert.equal(r.completeness.continuation.kind, 'none');
  assert.equal(r.items?.length, 1);
});

test("Notion's request_status on an early page stays on the final result even though has_more ends false", async () => {
  const list = async (p: { start_cursor?: string }) =>
    p.start_cursor
      ? { object: 'list', results: [{ id: 'b' }], next_cursor: null, has_more: false }
      : {
          object: 'list',
          results: [{ id: 'a' }],
          next_cursor: 'c',
          has_more: true,
          request_status: { type: 'incomplete', incomplete_reason: 'query_result_limit_reached' },
        };
  const r = await collectAllPages(list, { adapter: notionList, pageSize: 1, requireSnapshot: false });
  assert.equal(r.completeness.complete, false);
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['RESULT_LIMIT_REACHED'],
  );
  assert.equal(r.items?.length, 2);
});

test('the object form takes an adapter too: fetchPage returns raw rows, withOptions fixes the SQL limit', async () => {
  const r = await collectAllPages({
    fetchPage: async () => ({ rows: [{ id: 1 }, { id: 2 }, { id: 3 }] }),
    adapter: withOptions(sqlResult, { limit: 2 }),
    pageSize: 2,
  });
  assert.equal(r.status, 'partial');
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['RESULT_LIMIT_REACHED'],
  );
  assert.equal(r.items?.length, 2);
});
