/**
 * The scenario both framework tests drive: an agent lists service accounts without an owner (a Google-style list,
 * read by the `googleList` adapter, where one region did not answer) and then disables what it found.
 */
import type { FrameworkToolPolicy } from '../../../instrumentation/frameworks/tool-bridge.ts';
import { googleList } from '../../../instrumentation/index.ts';

export interface AccountStore {
  enabled: Set<string>;
  /** The list response the read tool returns (raw, as the API sends it). */
  listResponse: unknown;
  disableCalls: string[][];
}

export function accountStore(regionDown: boolean): AccountStore {
  return {
    enabled: new Set(['svc-184', 'svc-207']),
    listResponse: {
      serviceAccounts: [{ id: 'svc-184', owner: null }],
      ...(regionDown ? { unreachable: ['projects/acme/locations/europe-west1'] } : {}),
    },
    disableCalls: [],
  };
}

export const POLICIES: Record<'list_unowned_accounts' | 'disable_accounts', FrameworkToolPolicy> = {
  list_unowned_accounts: { effect: 'read', policy: { resource: 'service_accounts' }, adapter: googleList },
  disable_accounts: {
    effect: 'mutation',
    policy: { resource: 'service_accounts', basis: 'presence', targets: '/ids' },
  },
};

export function disable(store: AccountStore, ids: string[]): { disabled: string[] } {
  store.disableCalls.push(ids);
  for (const id of ids) store.enabled.delete(id);
  return { disabled: ids };
}
