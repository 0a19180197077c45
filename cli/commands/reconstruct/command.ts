/**
 * `tooltrail reconstruct`, `tooltrail verify` and `tooltrail serve-api`. Every option is declared here; what a
 * command does loads when it runs (run.ts), so that `--help` loads none of it. Exit codes: 0 ok, 1
 * usage/config error or failed verification, 2 nothing stored for the subject.
 */
import type { Command } from 'commander';
import { API_TOKEN_ENV } from '../../../platform/auth/token-env.ts';
import type { ReconstructFlags, ServeApiFlags, VerifyFlags } from './run.ts';

const run = () => import('./run.ts');
const collect = (v: string, all: string[]) => [...all, v];

export function registerReconstructCommands(program: Command): void {
  program
    .command('reconstruct')
    .description('what an agent saw, what it could not see, and on what it acted: the ordered timeline of a session')
    .option('--session <id>', 'agent session (gen_ai.conversation.id)')
    .option('--trace <id>', 'trace id (32 hex): every session that ran in it')
    .option('--finding <fingerprint>', 'an alert finding: the session it is about')
    .option('--tenant <tenant>', 'only this tenant (required, or --token / --all-tenants, once tokens are configured)')
    .option('--token <token>', `read as this API token's tenant only (or ${API_TOKEN_ENV})`)
    .option(
      '--all-tenants',
      'operator: every tenant holding the session, trace or finding (the default without tokens)',
    )
    .option('--json', 'print the reconstruction as JSON (schema: --schema)')
    .option('--html <file>', 'write a self-contained HTML report to <file>')
    .option('--max-calls <n>', 'most calls loaded per session (default 5000)', (v) => Number.parseInt(v, 10))
    .option('--schema', 'print the JSON Schema of --json output and exit')
    .action(async (flags: ReconstructFlags) => (await run()).reconstruct(flags));

  program
    .command('verify')
    .description('recompute the per-tenant, per-hour digests and report rows changed, deleted or added since written')
    .option('--tenant <tenant>', 'only this tenant (required, or --token / --all-tenants, once tokens are configured)')
    .option('--token <token>', `verify this API token's tenant only (or ${API_TOKEN_ENV})`)
    .option('--all-tenants', 'operator: every tenant (the default without tokens)')
    .option('--from <time>', 'start of the range: ISO 8601 or e.g. 24h ago as "-24h" (default: -24h)')
    .option('--to <time>', 'end of the range, exclusive (default: now)')
    .option('--json', 'print the report as JSON')
    .option('--bundle <file>', 'check a proof bundle (reconstruct --json "proofs") offline, without the database')
    .option(
      '--key <verifier>',
      'a trusted checkpoint key (repeatable; default TOOLTRAIL_CHECKPOINT_VERIFIERS)',
      collect,
      [],
    )
    .option('--no-rows', "check the Merkle log's checkpoints only, without re-walking the rows of the range")
    .action(async (flags: VerifyFlags) => (await run()).verify(flags));

  program
    .command('serve-api')
    .description('serve the reconstruction and verification HTTP API (fastify)')
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option('--port <port>', 'listen port', (v) => Number.parseInt(v, 10), 8787)
    .option('--no-auth', 'local development only: no credential, loopback only, every request reads --local-tenant')
    .option('--local-tenant <tenant>', 'with --no-auth: the one tenant every request reads', 'default')
    .action(async (flags: ServeApiFlags) => (await run()).serveApi(flags));
}
