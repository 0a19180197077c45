/**
 * The scenario corpus of the alerts tests, as agent sessions (written as spans by session-spans.ts). Each
 * session is one case of the rules; EXPECTED says which findings (and therefore pages) it must produce.
 */

import { DAY_MS } from '../../../alerts/clock.ts';
import type { SessionScript } from '../../../testkit/session-spans.ts';

export const OWNERS = {
  /** Owns the tool delete_service_accounts. */
  iam: { owner: 'iam-oncall', team: 'identity' },
  /** Owns the agent `auditor` (and so the mutations of tools nobody owns that it runs). */
  audit: { owner: 'audit-lead', team: 'compliance' },
  /** Owns the tool rotate_keys. */
  keys: { owner: 'keys-oncall', team: 'identity' },
} as const;

export interface ExpectedFinding {
  session: string;
  kind: 'mutation_after_incomplete_read' | 'absence_mutation_without_complete_evidence';
  severity: 'info' | 'warning' | 'critical';
  score: number;
  /** Labels of the incomplete reads it must cite. */
  reads: string[];
  owner: string | null;
  reasons: string[];
}

/** Sessions placed relative to `now`, all within the evaluator's active horizon (24 h). */
export function scenarioSessions(now: Date): SessionScript[] {
  const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000);
  return [
    {
      // Incomplete AND empty first page, then a deletion based on absence, guard allowed it, 12 targets.
      session: 'absence-after-incomplete-empty',
      agent: 'cleaner',
      start: at(50),
      steps: [
        {
          effect: 'read',
          label: 'page1',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: false,
          reasons: ['MORE_PAGES_AVAILABLE', 'CLIENT_LIMIT_REACHED'],
          items: 0,
          snapshot: 'sa-snap-1',
          at: 0,
        },
        {
          effect: 'mutation',
          label: 'delete',
          tool: 'delete_service_accounts',
          resource: 'service_accounts',
          basis: 'absence',
          targets: 12,
          guard: 'allowed',
          at: 30,
        },
      ],
    },
    {
      // Complete reads, then mutations: presence-based and absence-based. No page.
      session: 'complete-then-mutate',
      agent: 'cleaner',
      start: at(45),
      steps: [
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: true,
          items: 3,
          snapshot: 'sa-snap-2',
          at: 0,
        },
        {
          effect: 'mutation',
          tool: 'disable_service_accounts',
          resource: 'service_accounts',
          basis: 'presence',
          targets: 3,
          at: 10,
        },
        {
          effect: 'mutation',
          tool: 'delete_service_accounts',
          resource: 'service_accounts',
          basis: 'absence',
          targets: 2,
          evidenceSnapshots: ['sa-snap-2'],
          guard: 'allowed',
          at: 20,
        },
      ],
    },
    {
      // A read that says nothing about completeness (unknown = incomplete), then a presence-based mutation by an
      // unowned tool: the agent's owner is paged.
      session: 'unknown-completeness',
      agent: 'auditor',
      start: at(40),
      steps: [
        { effect: 'read', label: 'read', tool: 'search_audit_log', resource: 'audit_entries', items: 5, at: 0 },
        {
          effect: 'mutation',
          label: 'archive',
          tool: 'archive_audit_entries',
          resource: 'audit_entries',
          basis: 'presence',
          targets: 5,
          at: 15,
        },
      ],
    },
    {
      // An incomplete empty read of ANOTHER resource: not what the mutation relied on. No page.
      session: 'incomplete-other-resource',
      agent: 'cleaner',
      start: at(35),
      steps: [
        {
          effect: 'read',
          tool: 'list_api_keys',
          resource: 'api_keys',
          complete: false,
          reasons: ['RESULT_LIMIT_REACHED'],
          items: 0,
          at: 0,
        },
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: true,
          items: 9,
          at: 5,
        },
        {
          effect: 'mutation',
          tool: 'delete_service_accounts',
          resource: 'service_accounts',
          basis: 'absence',
          targets: 1,
          at: 10,
        },
      ],
    },
    {
      // An incomplete first page superseded by a complete read the mutation names as evidence. No page.
      session: 'superseded-by-complete-evidence',
      agent: 'cleaner',
      start: at(30),
      steps: [
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: false,
          reasons: ['MORE_PAGES_AVAILABLE'],
          items: 50,
          snapshot: 'sa-snap-3',
          at: 0,
        },
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: true,
          items: 120,
          snapshot: 'sa-snap-4',
          at: 20,
        },
        {
          effect: 'mutation',
          tool: 'delete_service_accounts',
          resource: 'service_accounts',
          basis: 'absence',
          targets: 4,
          evidenceSnapshots: ['sa-snap-4'],
          guard: 'allowed',
          at: 40,
        },
      ],
    },
    {
      // Acts on an absence with no read behind it at all, tool and agent unowned: escalation.
      session: 'absence-without-evidence',
      agent: 'janitor',
      start: at(25),
      steps: [
        {
          effect: 'mutation',
          label: 'purge',
          tool: 'purge_orphan_disks',
          resource: 'disks',
          basis: 'absence',
          targets: 150,
          at: 0,
        },
      ],
    },
    {
      // Names as evidence a snapshot whose only read was incomplete (a different resource label): page keys-oncall.
      session: 'named-incomplete-evidence',
      agent: 'rotator',
      start: at(20),
      steps: [
        {
          effect: 'read',
          label: 'keys',
          tool: 'list_signing_keys',
          resource: 'signing_keys_v2',
          complete: false,
          reasons: ['TIME_BUDGET_EXCEEDED'],
          items: 7,
          snapshot: 'keys-snap-1',
          at: 0,
        },
        {
          effect: 'mutation',
          label: 'rotate',
          tool: 'rotate_keys',
          resource: 'signing_keys',
          basis: 'presence',
          targets: 7,
          evidenceSnapshots: ['keys-snap-1'],
          guard: 'review_requested',
          at: 10,
        },
      ],
    },
    {
      // The incomplete read is older than the window (1 h): not what the mutation relied on. No page.
      session: 'read-outside-window',
      agent: 'cleaner',
      start: at(130),
      steps: [
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: false,
          reasons: ['SOURCE_UNAVAILABLE'],
          items: 0,
          at: 0,
        },
        {
          effect: 'mutation',
          tool: 'disable_service_accounts',
          resource: 'service_accounts',
          basis: 'presence',
          targets: 1,
          at: 3_700,
        },
      ],
    },
    {
      // The incomplete read comes AFTER the mutation: it cannot have misled it. No page.
      session: 'incomplete-read-after-mutation',
      agent: 'cleaner',
      start: at(15),
      steps: [
        {
          effect: 'mutation',
          tool: 'disable_service_accounts',
          resource: 'service_accounts',
          basis: 'presence',
          targets: 2,
          at: 0,
        },
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: false,
          reasons: ['RATE_LIMITED'],
          items: 0,
          at: 10,
        },
      ],
    },
  ];
}

export const EXPECTED: readonly ExpectedFinding[] = [
  {
    session: 'absence-after-incomplete-empty',
    kind: 'mutation_after_incomplete_read',
    // 1 + absence 3 + incomplete-and-empty 2 + guard allowed 2 + 12 targets 1
    score: 9,
    severity: 'critical',
    reads: ['page1'],
    owner: OWNERS.iam.owner,
    reasons: ['MORE_PAGES_AVAILABLE', 'CLIENT_LIMIT_REACHED'],
  },
  {
    session: 'unknown-completeness',
    kind: 'mutation_after_incomplete_read',
    // 1 + no guard 2
    score: 3,
    severity: 'warning',
    reads: ['read'],
    owner: OWNERS.audit.owner,
    reasons: ['COMPLETENESS_UNKNOWN'],
  },
  {
    session: 'absence-without-evidence',
    kind: 'absence_mutation_without_complete_evidence',
    // 1 + absence 3 + no guard 2 + 150 targets 2
    score: 8,
    severity: 'critical',
    reads: [],
    owner: null,
    reasons: [],
  },
  {
    session: 'named-incomplete-evidence',
    kind: 'mutation_after_incomplete_read',
    // 1 (presence, review requested, 7 targets)
    score: 1,
    severity: 'info',
    reads: ['keys'],
    owner: OWNERS.keys.owner,
    reasons: ['TIME_BUDGET_EXCEEDED'],
  },
];

/** The same warning (STALE_INDEX from accounts-index) seen once a day, 3 h before `now`, on each of the last `days` days. */
export function dailyWarningSessions(now: Date, days: number): SessionScript[] {
  return Array.from({ length: days }, (_, d) => ({
    session: `warn-day-${d}`,
    agent: 'reporter',
    start: new Date(now.getTime() - d * DAY_MS - 3 * 3_600_000),
    steps: [
      {
        effect: 'read' as const,
        tool: 'list_accounts',
        resource: 'accounts',
        complete: true,
        items: 4,
        warnings: [{ code: 'STALE_INDEX' as const, source: 'accounts-index' }],
        at: 0,
      },
    ],
  }));
}
