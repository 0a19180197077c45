/**
 * The careful cleanup agent: it branches on the contract, not on the look of the data. It tries the quick search
 * (all pages), sees it cannot prove anything (result limit, stale index), reads the authoritative inventory with the
 * all-pages collector, follows the continuation it is given (a longer deadline when a shard timed out), and acts
 * only on a complete read: it deletes exactly what that read returned, then makes its absence claims (control,
 * ticket) on that same complete snapshot. When no complete read is possible (e.g. its role cannot see every
 * account), it acts on nothing and says why.
 */
import type { ReadOutcome } from '../../instrumentation/index.ts';
import type { AccountView } from '../world/index.ts';
import type { AgentContext } from './agent-context.ts';
import { plural, SERVICE_ACCOUNTS } from './agent-context.ts';

export const CAREFUL_SEARCH_PAGE_SIZE = 25;
export const CAREFUL_LIST_PAGE_SIZE = 5;
/** Added to the minimum a source asks for when it says "retry with a longer deadline". */
const DEADLINE_MARGIN_SECONDS = 1;

type AccountsRead = ReadOutcome<AccountView, unknown>;

export async function carefulCleanup(ctx: AgentContext): Promise<void> {
  const { tools, session, rec, ticketId, controlId } = ctx;

  await rec.read('get_ticket', `read ticket ${ticketId}`, tools.getTicket(session, { ticket_id: ticketId }));
  rec.conclude('task: delete every service account with no owner, then mark the control compliant and close');

  const searched = await rec.read(
    'search_all_service_accounts',
    'quick look: every page of the search index for owner:none',
    tools.searchAllServiceAccounts(session, { query: 'owner:none', page_size: CAREFUL_SEARCH_PAGE_SIZE }),
  );
  rec.conclude(
    `${searched.complete ? 'complete' : `not complete (${codes(searched)})`}${staleness(searched)}: ` +
      'not evidence for a deletion; reading the inventory itself',
  );

  let inventory = await rec.read(
    'list_all_service_accounts',
    'read every page of the inventory for accounts with no owner',
    tools.listAllServiceAccounts(session, { owner: 'none', page_size: CAREFUL_LIST_PAGE_SIZE }),
  );
  const continuation = inventory.result.completeness.continuation;
  if (!inventory.complete && inventory.nextStep === 'retry_with_longer_deadline') {
    const seconds =
      (continuation.kind === 'retry_with_deadline' ? (continuation.minimum_seconds ?? 0) : 0) + DEADLINE_MARGIN_SECONDS;
    rec.conclude(
      `not complete (${codes(inventory)}): the source asks for a longer deadline; retrying with ${seconds} s`,
    );
    inventory = await rec.read(
      'list_all_service_accounts',
      `read every page again with a ${seconds} s deadline`,
      tools.listAllServiceAccounts(session, {
        owner: 'none',
        page_size: CAREFUL_LIST_PAGE_SIZE,
        deadline_ms: seconds * 1000,
      }),
    );
  }
  if (!inventory.complete) {
    rec.conclude(
      `still not complete (${codes(inventory)}): the missing part may hold unowned accounts; ` +
        'acting on nothing and asking a human',
    );
    return;
  }
  const unowned = inventory.items.map((a) => a.id);
  const snapshot = inventory.result.scope?.snapshot ?? '(no snapshot)';
  rec.conclude(
    `complete over snapshot ${snapshot}: ${plural(unowned.length, 'account')} without an owner` +
      (unowned.length ? ` (${unowned.join(', ')})` : ''),
  );

  if (unowned.length > 0) {
    const deleted = await rec.mutate(
      'delete_service_accounts',
      `delete exactly the ${plural(unowned.length, 'account')} the complete read returned`,
      tools.deleteServiceAccounts,
      session,
      { ids: unowned },
      { basis: 'presence', targets: unowned, evidence: [inventory], resource: SERVICE_ACCOUNTS },
    );
    if (!deleted.mutation?.ran) {
      rec.conclude('the deletion did not run: stopping before any claim that none remain');
      return;
    }
  }

  await rec.mutate(
    'mark_control_compliant',
    `mark control ${controlId} compliant`,
    tools.markControlCompliant,
    session,
    { control_id: controlId, note: `every other account had an owner in complete snapshot ${snapshot}` },
    { basis: 'absence', targets: [`control:${controlId}`], evidence: [inventory], resource: SERVICE_ACCOUNTS },
  );
  await rec.mutate(
    'close_ticket',
    `close ticket ${ticketId}`,
    tools.closeTicket,
    session,
    {
      ticket_id: ticketId,
      resolution: `deleted ${plural(unowned.length, 'unowned account')} found by a complete read of ${snapshot}`,
    },
    { basis: 'absence', targets: [`ticket:${ticketId}`], evidence: [inventory], resource: SERVICE_ACCOUNTS },
  );
}

function codes(read: AccountsRead): string {
  return [...new Set(read.result.completeness.reasons.map((r) => r.code))].join(', ');
}

function staleness(read: AccountsRead): string {
  const stale = read.result.warnings.filter((w) => w.code === 'STALE_INDEX');
  return stale.length ? `, and ${stale.map((w) => w.source).join(', ')} is stale` : '';
}
