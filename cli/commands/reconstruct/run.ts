/**
 * What `tooltrail reconstruct`, `tooltrail verify` and `tooltrail serve-api` do (declared in command.ts, loaded
 * when one runs). Errors a user can fix print one line; exit codes: 0 ok, 1 usage/config error or failed
 * verification, 2 nothing stored for the subject.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createVerifyOptions, parseTimeOption, renderVerifyText } from '../../../audit/cli-support.ts';
import { buildBundle, type ProofBundle, verifyBundle } from '../../../audit/log/bundle.ts';
import { renderBundleHtml } from '../../../audit/log/bundle-html.ts';
import { LogConfigError, verifiersFrom } from '../../../audit/log/config.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { verifyRange } from '../../../audit/log/verify-range.ts';
import { verifyRangeProblem } from '../../../audit/verify.ts';
import {
  FingerprintSchema,
  InvalidIdError,
  parseId,
  SessionIdSchema,
  TenantSchema,
  TraceIdSchema,
} from '../../../contract/index.ts';
import { createReadClickHouse } from '../../../platform/auth/read-clickhouse.ts';
import { ReadScopeError, resolveSubjectReadScope } from '../../../platform/auth/read-scope.ts';
import { API_TOKENS_ENV, TokenConfigError, TokenDirectory } from '../../../platform/auth/tokens.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { type FindingResolver, findingResolverFor, reconstructFinding } from '../../../reconstruct/finding.ts';
import { NotFoundError, reconstructSession, reconstructTrace } from '../../../reconstruct/reconstruct.ts';
import { renderReconstructionHtml } from '../../../reconstruct/render-html.ts';
import { renderReconstructionText } from '../../../reconstruct/render-terminal.ts';
import { reconstructionJsonSchema } from '../../../reconstruct/timeline.ts';
import { schemaConfigFromEnv } from '../../../schema/config.ts';
import { loadServicesConfig } from '../../../services/config.ts';

export interface ReconstructFlags {
  session?: string;
  trace?: string;
  finding?: string;
  tenant?: string;
  token?: string;
  allTenants?: boolean;
  json?: boolean;
  html?: string;
  maxCalls?: number;
  schema?: boolean;
}

export interface VerifyFlags {
  tenant?: string;
  token?: string;
  allTenants?: boolean;
  from?: string;
  to?: string;
  json?: boolean;
  bundle?: string;
  key: string[];
  rows: boolean;
}

export interface ServeApiFlags {
  host: string;
  port: number;
  auth: boolean;
  localTenant: string;
}

/** Everything here only reads: the read-side account (platform/auth/read-clickhouse.ts). */
function clickhouse(): ClickHouseClient {
  return createReadClickHouse(loadServicesConfig().clickhouse, process.env);
}

/** One-line errors for what the user can fix; anything else keeps its stack. */
async function run(fn: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await fn();
  } catch (err) {
    if (
      err instanceof InvalidIdError ||
      err instanceof UsageError ||
      err instanceof TokenConfigError ||
      err instanceof ReadScopeError ||
      err instanceof LogConfigError
    ) {
      console.error(`tooltrail: ${err.message}`);
      process.exitCode = 1;
    } else if (err instanceof NotFoundError) {
      console.error(`tooltrail: ${err.message}`);
      process.exitCode = 2;
    } else if (setupProblem(err)) {
      console.error(`tooltrail: ${setupProblem(err)}`);
      process.exitCode = 1;
    } else throw err;
  }
}

class UsageError extends Error {}

/**
 * The tenant a read command is confined to (platform/auth/read-scope.ts): a token's, or the operator's --tenant;
 * every tenant with --all-tenants (said on stderr), or with no scope named only where no tokens are configured.
 */
function scopedTenant(flags: { token?: string; tenant?: string; allTenants?: boolean }): string | undefined {
  const tenant = flags.tenant === undefined ? undefined : parseId(TenantSchema, flags.tenant, '--tenant');
  const scope = resolveSubjectReadScope({ token: flags.token, tenant, allTenants: flags.allTenants }, process.env);
  if (scope.kind === 'tenant') return scope.tenant;
  if (flags.allTenants) console.error('tooltrail: every tenant (--all-tenants, operator mode)');
  return undefined;
}

/** Errors of a database that is not there yet or a server that is down: one line with the fix. */
function setupProblem(err: unknown): string | null {
  const e = err as { type?: unknown; code?: unknown; message?: unknown };
  if (e?.type === 'UNKNOWN_DATABASE' || e?.type === 'UNKNOWN_TABLE') {
    return `${String(e.message).trim().replace(/\.$/, '')}: create the schema with \`tooltrail migrate\``;
  }
  if (e?.code === 'ECONNREFUSED') return 'ClickHouse is not reachable: start it with `tooltrail services up`';
  return null;
}

/** `tooltrail reconstruct`. */
export function reconstruct(flags: ReconstructFlags): Promise<void> {
  return run(async () => {
    if (flags.schema) {
      console.log(JSON.stringify(reconstructionJsonSchema(), null, 2));
      return 0;
    }
    const given = [flags.session, flags.trace, flags.finding].filter((v) => v !== undefined).length;
    if (given !== 1) throw new UsageError('give exactly one of --session, --trace, --finding');
    if (flags.maxCalls !== undefined && !(flags.maxCalls > 0)) throw new UsageError('--max-calls must be > 0');
    const tenant = scopedTenant(flags);
    const schema = schemaConfigFromEnv();
    const opts = flags.maxCalls ? { maxCalls: flags.maxCalls } : {};
    const ch = clickhouse();
    try {
      const r = flags.session
        ? await reconstructSession(
            ch,
            schema,
            { session: parseId(SessionIdSchema, flags.session, '--session'), ...(tenant ? { tenant } : {}) },
            opts,
          )
        : flags.trace
          ? await reconstructTrace(
              ch,
              schema,
              { trace: parseId(TraceIdSchema, flags.trace, '--trace'), ...(tenant ? { tenant } : {}) },
              opts,
            )
          : await reconstructFinding(
              ch,
              schema,
              scopedResolver(findingResolverFor(ch, schema), tenant),
              parseId(FingerprintSchema, flags.finding ?? '', '--finding'),
              opts,
            );
      const proofs = flags.json || flags.html ? await proofsOf(ch, schema.database, r) : [];
      if (flags.html) {
        const file = resolve(flags.html);
        writeFileSync(file, renderReconstructionHtml(r, { appendix: proofs.map(renderBundleHtml).join('\n') }));
        if (!flags.json) console.error(`HTML report written to ${file}`);
      }
      if (flags.json) console.log(JSON.stringify({ ...r, proofs }, null, 2));
      else console.log(renderReconstructionText(r));
      return 0;
    } finally {
      await ch.close();
    }
  });
}

/** `tooltrail verify`. */
export function verify(flags: VerifyFlags): Promise<void> {
  return run(async () => {
    if (flags.bundle) return checkBundleFile(flags.bundle, flags.key, flags.json === true);
    const now = new Date();
    let from: Date;
    let to: Date;
    try {
      from = parseTimeOption(flags.from ?? '-24h', now);
      to = parseTimeOption(flags.to ?? 'now', now);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (from >= to) throw new UsageError('--from must be before --to');
    const rangeProblem = verifyRangeProblem(from, to);
    if (rangeProblem) throw new UsageError(rangeProblem);
    const tenant = scopedTenant(flags);
    const schema = schemaConfigFromEnv();
    const ch = clickhouse();
    try {
      const report = await verifyRange(ch, schema, {
        ...createVerifyOptions(process.env),
        from,
        to,
        ...(tenant ? { tenant } : {}),
        rows: flags.rows,
        verifiers: verifiersFrom(flags.key),
      });
      console.log(flags.json ? JSON.stringify(report, null, 2) : renderVerifyText(report));
      return report.ok ? 0 : 1;
    } finally {
      await ch.close();
    }
  });
}

/** `tooltrail serve-api`: until SIGINT or SIGTERM. */
export function serveApi(flags: ServeApiFlags): Promise<void> {
  return run(async () => {
    const { startApiServer } = await import('./api-server.ts');
    const tokens = TokenDirectory.fromEnv(process.env);
    if (flags.auth && tokens.size === 0) {
      throw new UsageError(
        `serve-api needs tokens: set ${API_TOKENS_ENV}="token=tenant,..." (or --no-auth for local development)`,
      );
    }
    const auth = flags.auth
      ? { mode: 'bearer' as const, tokens }
      : { mode: 'none' as const, tenant: parseId(TenantSchema, flags.localTenant, '--local-tenant') };
    const schema = schemaConfigFromEnv();
    const ch = clickhouse();
    let server: Awaited<ReturnType<typeof startApiServer>>;
    try {
      server = await startApiServer({
        ch,
        schema,
        auth,
        host: flags.host,
        port: flags.port,
        ...createVerifyOptions(process.env),
      });
    } catch (err) {
      await ch.close();
      if (/loopback only/.test(String(err))) throw new UsageError((err as Error).message);
      throw err;
    }
    console.error(`tooltrail API listening on ${server.url} (database ${schema.database})`);
    await new Promise<void>((done) => {
      const stop = () => {
        void server
          .close()
          .then(() => ch.close())
          .then(done);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return 0;
  });
}

/** Proof bundles (one per tenant) for every tool call of a reconstruction: leaf index and inclusion proof each. */
async function proofsOf(
  ch: ClickHouseClient,
  database: string,
  r: { sessions: { tenant: string; entries: { kind: string; span_id?: string }[] }[] },
): Promise<ProofBundle[]> {
  const byTenant = new Map<string, string[]>();
  for (const s of r.sessions) {
    const ids = byTenant.get(s.tenant) ?? [];
    for (const e of s.entries) if (e.kind === 'call' && e.span_id) ids.push(e.span_id);
    byTenant.set(s.tenant, ids);
  }
  const store = new LogStore(ch, database);
  const out: ProofBundle[] = [];
  for (const [tenant, ids] of byTenant) out.push(await buildBundle(ch, store, database, tenant, ids));
  return out;
}

/** `verify --bundle`: a file holding one bundle, a list of them, or a reconstruction with `proofs`. */
function checkBundleFile(file: string, keys: string[], json: boolean): number {
  const verifiers = verifiersFrom(keys);
  if (verifiers.length === 0)
    throw new UsageError('no trusted checkpoint key: give --key or TOOLTRAIL_CHECKPOINT_VERIFIERS');
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read the bundle ${file}: ${(err as Error).message}`);
  }
  const found = input as { proofs?: unknown };
  const bundles: unknown[] = Array.isArray(input) ? input : Array.isArray(found?.proofs) ? found.proofs : [input];
  const verdicts = bundles.map((b) => verifyBundle(b, verifiers));
  const ok = verdicts.length > 0 && verdicts.every((v) => v.ok);
  if (json) console.log(JSON.stringify({ ok, bundles: verdicts }, null, 2));
  else {
    for (const v of verdicts) {
      console.log(
        `${v.ok ? 'VERIFIED' : 'FAILED'}: tenant ${v.tenant || '?'}, ${v.verified} call(s) proven in the signed log`,
      );
      for (const f of v.failures) console.log(`  failed ${f.row_id}: ${f.statement}`);
      for (const n of v.not_provable) console.log(`  no proof ${n.row_id}: ${n.reason}`);
    }
  }
  return ok ? 0 : 1;
}

/** Another tenant's finding reads as no finding at all: the answer must not tell that it exists. */
function scopedResolver(resolve: FindingResolver, tenant: string | undefined): FindingResolver {
  if (tenant === undefined) return resolve;
  return async (fingerprint) => {
    const f = await resolve(fingerprint);
    return f && f.tenant === tenant ? f : null;
  };
}
