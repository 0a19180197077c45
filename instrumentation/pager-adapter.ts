/**
 * The all-pages collector over a raw API: an adapter turns each response into the contract and says which request
 * parameters fetch the next page, so `collectAllPages(github.issues.list, { adapter: linkHeader })` works.
 */
import type { AdapterOptions, CompletenessAdapter } from './adapters/adapter.ts';
import type { CollectAllPagesOptions, PageRequest } from './pager.ts';

/** Any adapter, whatever its options type. */
export type PageAdapter = Pick<CompletenessAdapter<AdapterOptions>, 'name' | 'pageParams'> & {
  read(response: unknown): unknown;
};

/** An API client method taking one parameter object (Octokit, Stripe, Slack, Notion, Google clients). */
export type ListFunction<P> = (params: P) => Promise<unknown>;

export interface ListPagesOptions<T, P> extends Omit<CollectAllPagesOptions<T>, 'fetchPage' | 'pageSize' | 'adapter'> {
  adapter: PageAdapter;
  /** Default 100 (GitHub's, Stripe's and Notion's largest page). */
  pageSize?: number;
  /** The call's own parameters (owner, repo, filters); the adapter adds the page size and cursor. */
  params?: P;
}

export const DEFAULT_ADAPTED_PAGE_SIZE = 100;

export function fromListFunction<T, P>(
  list: ListFunction<P>,
  options: ListPagesOptions<T, P>,
): CollectAllPagesOptions<T> {
  const { adapter, params, pageSize, ...rest } = options;
  return {
    ...rest,
    adapter,
    pageSize: pageSize ?? DEFAULT_ADAPTED_PAGE_SIZE,
    fetchPage: (request: PageRequest) =>
      list({ ...(params ?? {}), ...adapter.pageParams(request.cursor, request.pageSize) } as P),
  };
}

/** Each response (and each thrown API error the adapter understands) read through the adapter. */
export function readThrough(adapter: PageAdapter, fetchPage: (r: PageRequest) => Promise<unknown>) {
  return async (request: PageRequest): Promise<unknown> => {
    let raw: unknown;
    try {
      raw = await fetchPage(request);
    } catch (err) {
      const read = adapter.read(err) as { status?: string; completeness?: { reasons?: { code: string }[] } };
      // An error the adapter recognizes (rate limit, expired cursor, denied) keeps its reason; others stay thrown.
      if (read.status === 'error' && read.completeness?.reasons?.some((r) => r.code !== 'COMPLETENESS_UNKNOWN'))
        return read;
      throw err;
    }
    return adapter.read(raw);
  };
}
