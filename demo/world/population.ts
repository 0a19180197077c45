/**
 * The people and service accounts of the demo world, generated from the seed. The layout follows the story:
 * the oldest accounts went through last year's ownership review (owned, readable by anyone), so a search that
 * pages through them first returns empty pages; the unowned and hidden ones came later; the newest ones are
 * younger than the search index.
 */
import type { ShardConfig, WorldConfig } from './config.ts';
import type { Random } from './random.ts';
import { seededRandom } from './random.ts';

export interface Person {
  email: string;
  name: string;
  team: string;
}

export interface ServiceAccount {
  id: string;
  name: string;
  shard: string;
  team: string;
  /** E-mail of the owner; null when nobody owns the account. */
  owner: string | null;
  /** Readable only by privileged roles (the security team's accounts). */
  restricted: boolean;
  createdAt: string;
}

export interface Population {
  people: Person[];
  /** In creation order; ids ascend with it. */
  accounts: ServiceAccount[];
}

const SECURITY_TEAM = 'security';
const TEAMS = ['payments', 'identity', 'search', 'billing', 'data-platform', 'mobile', 'growth', 'observability'];
const FIRST = ['alice', 'bruno', 'chloe', 'dmitri', 'elena', 'farid', 'grace', 'hugo', 'ines', 'jonas', 'kenji', 'lea'];
const LAST = ['martin', 'okafor', 'rossi', 'nguyen', 'schmidt', 'dubois', 'silva', 'kowalski', 'haddad', 'berg'];
const PURPOSES = [
  'ci-deployer',
  'backup-writer',
  'metrics-exporter',
  'etl-runner',
  'webhook-relay',
  'cert-renewer',
  'log-shipper',
  'cron-worker',
  'terraform-apply',
  'dns-updater',
  'queue-consumer',
  'report-builder',
];

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

type Kind = 'visible-owned' | 'visible-unowned' | 'restricted-owned' | 'restricted-unowned';
interface Slot {
  shard: ShardConfig;
  kind: Kind;
}

export function generatePopulation(config: WorldConfig): Population {
  const random = seededRandom(config.seed);
  const people = generatePeople(config, random);
  const regular = people.filter((p) => p.team !== SECURITY_TEAM);
  const security = people.filter((p) => p.team === SECURITY_TEAM);

  const slots = orderSlots(config, random);
  const now = Date.parse(config.now);
  const times = creationTimes(config, slots.length, now, random);
  const names = new Set<string>();

  const accounts = slots.map((slot, i): ServiceAccount => {
    const restricted = slot.kind.startsWith('restricted');
    const owned = slot.kind.endsWith('-owned');
    const ownerPool = restricted ? security : regular;
    const owner = owned ? random.pick(ownerPool) : undefined;
    const team = restricted ? SECURITY_TEAM : (owner?.team ?? random.pick(TEAMS));
    return {
      id: `sa-${1001 + i}`,
      name: uniqueName(`${team}-${random.pick(PURPOSES)}`, names),
      shard: slot.shard.name,
      team,
      owner: owner?.email ?? null,
      restricted,
      createdAt: new Date(times[i] ?? now).toISOString(),
    };
  });
  return { people, accounts };
}

function generatePeople(config: WorldConfig, random: Random): Person[] {
  const pairs = random.shuffle(FIRST.flatMap((f) => LAST.map((l) => [f, l] as const))).slice(0, config.people);
  return pairs.map(([first, last], i) => ({
    email: `${first}.${last}@example.com`,
    name: `${cap(first)} ${cap(last)}`,
    team: i >= config.people - config.securityPeople ? SECURITY_TEAM : (TEAMS[i % TEAMS.length] as string),
  }));
}

/** Creation order: reviewed (readable, owned) first, fresh last (with `freshUnowned` unowned), the rest shuffled. */
function orderSlots(config: WorldConfig, random: Random): Slot[] {
  const pool: Record<Kind, Slot[]> = {
    'visible-owned': [],
    'visible-unowned': [],
    'restricted-owned': [],
    'restricted-unowned': [],
  };
  for (const shard of config.shards) {
    const add = (kind: Kind, n: number) => {
      for (let k = 0; k < n; k += 1) pool[kind].push({ shard, kind });
    };
    add('restricted-unowned', shard.restrictedUnowned);
    add('restricted-owned', shard.restricted - shard.restrictedUnowned);
    add('visible-unowned', shard.unowned - shard.restrictedUnowned);
    add('visible-owned', shard.accounts - shard.unowned - shard.restricted + shard.restrictedUnowned);
  }
  const visibleOwned = random.shuffle(pool['visible-owned']);
  const visibleUnowned = random.shuffle(pool['visible-unowned']);
  const reviewed = visibleOwned.splice(0, config.reviewedAccounts);
  const fresh = random.shuffle([
    ...visibleUnowned.splice(0, config.freshUnowned),
    ...visibleOwned.splice(0, config.freshAccounts - config.freshUnowned),
  ]);
  const middle = random.shuffle([
    ...visibleOwned,
    ...visibleUnowned,
    ...pool['restricted-owned'],
    ...pool['restricted-unowned'],
  ]);
  return [...reviewed, ...middle, ...fresh];
}

/** Ascending creation times: reviewed ones 400-1100 days ago, then up to 2 days ago, fresh ones within the lag. */
function creationTimes(config: WorldConfig, total: number, now: number, random: Random): number[] {
  const times: number[] = [];
  const middle = total - config.reviewedAccounts - config.freshAccounts;
  const spread = (from: number, to: number, n: number) => {
    const step = (to - from) / Math.max(1, n);
    for (let k = 0; k < n; k += 1) times.push(Math.round(from + step * (k + random.next() * 0.8)));
  };
  spread(now - 1100 * DAY_MS, now - 400 * DAY_MS, config.reviewedAccounts);
  spread(now - 300 * DAY_MS, now - 2 * DAY_MS, middle);
  spread(now - (config.search.lagMinutes - 1) * MINUTE_MS, now - MINUTE_MS, config.freshAccounts);
  return times;
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n += 1) name = `${base}-${n}`;
  taken.add(name);
  return name;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
