/**
 * GraphQL cursor connections (the Relay specification, used by GitHub, Shopify, and most GraphQL APIs):
 * `pageInfo.hasNextPage` with `endCursor`, items in `nodes` or `edges[].node`. A GraphQL response may carry data
 * and `errors` at once: an error on the connection's path means its data is partial.
 */
import type { Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

export interface RelayOptions extends AdapterOptions {
  /** Path from `data` to the connection in a full GraphQL response, e.g. `['repository', 'issues']`. */
  path?: string[];
}

const SOURCE = 'graphql';

export const relayConnection = defineAdapter<RelayOptions>({
  name: 'relayConnection',
  read(response, options) {
    const path = options.path ?? [];
    const isResponse = isRecord(response) && ('data' in response || 'errors' in response);
    let connection: unknown = isResponse ? (response as Record<string, unknown>).data : response;
    for (const key of path) connection = isRecord(connection) ? connection[key] : undefined;
    const errors = isResponse ? graphqlErrors((response as Record<string, unknown>).errors, path) : [];

    if (!isRecord(connection)) {
      if (errors.length > 0) {
        return { reasons: errors, error: { type: 'graphql_error', message: errors[0]?.message ?? 'GraphQL error' } };
      }
      return unrecognized(response, `no connection at ${path.length ? path.join('.') : 'the root'}`);
    }
    const items = Array.isArray(connection.nodes)
      ? connection.nodes
      : Array.isArray(connection.edges)
        ? connection.edges.map((e) => (isRecord(e) ? e.node : undefined))
        : undefined;
    const pageInfo = connection.pageInfo;
    if (items === undefined || !isRecord(pageInfo) || typeof pageInfo.hasNextPage !== 'boolean') {
      return unrecognized(connection, 'not a connection (nodes or edges, pageInfo.hasNextPage)');
    }
    const reasons: Reason[] = [...errors];
    if (!pageInfo.hasNextPage) return { items, reasons };
    const cursor = nonEmpty(pageInfo.endCursor);
    reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: 'pageInfo.hasNextPage', source: SOURCE });
    if (cursor === undefined) {
      // More exists but the query did not select endCursor: nothing to continue from.
      reasons.push({ code: 'COMPLETENESS_UNKNOWN', message: 'hasNextPage without an endCursor', source: SOURCE });
      return { items, reasons };
    }
    return { items, reasons, continuation: { kind: 'next_cursor', cursor } };
  },
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { first: pageSize } : { first: pageSize, after: cursor };
  },
});

/** Errors on the connection's path (or above it, or without a path) make it partial. */
function graphqlErrors(errors: unknown, path: string[]): Reason[] {
  if (!Array.isArray(errors)) return [];
  const out: Reason[] = [];
  for (const e of errors) {
    if (!isRecord(e)) continue;
    const ePath = Array.isArray(e.path) ? e.path.map(String) : [];
    // Above the connection, on it, or inside it: one path is a prefix of the other.
    const related = ePath.every((p, i) => i >= path.length || p === path[i]);
    if (!related) continue;
    const kind = String((isRecord(e.extensions) ? e.extensions.code : undefined) ?? e.type ?? '').toUpperCase();
    const message = typeof e.message === 'string' ? e.message : 'GraphQL error';
    const code =
      kind === 'RATE_LIMITED' || kind === 'RATE_LIMIT'
        ? 'RATE_LIMITED'
        : kind === 'FORBIDDEN' || kind === 'UNAUTHORIZED' || kind === 'UNAUTHENTICATED'
          ? 'VISIBILITY_RESTRICTED'
          : 'SOURCE_UNAVAILABLE';
    out.push({ code, message, source: ePath.length ? ePath.join('.') : SOURCE });
  }
  return out;
}
