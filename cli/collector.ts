/**
 * `tooltrail collector`: runs the OTLP/HTTP collector until SIGINT/SIGTERM, then stops accepting, lets in-flight
 * requests finish (each answered only after Kafka acknowledged), flushes and disconnects. When the process lacks
 * the collector's V8 flags (collector/node-flags.ts), it validates the configuration, then re-executes itself with
 * them and relays signals and the exit code.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import type { CollectorConfigInput, loadCollectorConfig } from '../collector/config.ts';
import { COLLECTOR_NODE_FLAGS, hasCollectorNodeFlags, REEXEC_ENV } from '../collector/node-flags.ts';

interface CollectorFlags {
  config?: string;
  host?: string;
  port?: string;
  auth?: boolean;
  topic?: string;
  sink?: string;
}

export function registerCollectorCommand(program: Command): void {
  program
    .command('collector')
    .description('run the OTLP/HTTP collector (POST /v1/traces on :4318) producing spans to Kafka')
    .option('-c, --config <file>', 'YAML/JSON configuration file (its `collector:` section)')
    .option('--host <address>', 'address to bind (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default 4318)')
    .option('--no-auth', 'local development only: no tokens, one tenant, loopback bind only')
    .option('--topic <name>', 'Kafka topic (default otlp_spans)')
    .option('--sink <kafka|discard>', 'where spans go; discard drops them (benchmarks only)')
    .action(async (flags: CollectorFlags) => {
      // Loaded when the command runs, so that `tooltrail --help` and the other commands do not pay for it.
      const { CollectorConfigError, loadCollectorConfig } = await import('../collector/config.ts');
      const { ConfigError } = await import('../platform/connections.ts');
      const overrides: CollectorConfigInput = {};
      if (flags.host !== undefined || flags.port !== undefined) {
        overrides.http = {
          ...(flags.host !== undefined ? { host: flags.host } : {}),
          ...(flags.port !== undefined ? { port: Number(flags.port) } : {}),
        };
      }
      if (flags.auth === false) overrides.auth = { mode: 'none' };
      if (flags.topic !== undefined) overrides.kafka = { topic: flags.topic };
      if (flags.sink !== undefined) overrides.sink = flags.sink as 'kafka' | 'discard';
      let config: ReturnType<typeof loadCollectorConfig>;
      try {
        config = loadCollectorConfig({ ...(flags.config ? { file: flags.config } : {}), overrides });
      } catch (err) {
        // The CLI prints ConfigError as one line (cause and fix), never a stack trace.
        if (err instanceof CollectorConfigError) throw new ConfigError(err.message);
        throw err;
      }
      if (!hasCollectorNodeFlags() && !process.env[REEXEC_ENV]) {
        await runWithNodeFlags();
        return;
      }
      // The logger stays at warn; what senders get wrong is the operator's to read, so it goes to stdout.
      const { createCollector } = await import('../collector/factory.ts');
      const collector = await createCollector(config, { logger: { level: 'warn' }, senders: (l) => console.log(l) });
      const address = await collector.start();
      const tenants = new Set(config.auth.tokens.map((t) => t.tenant));
      console.log(
        `tooltrail collector listening on ${address}/v1/traces (sink ${config.sink}${
          config.sink === 'kafka' ? `: ${config.kafka.brokers.join(',')} topic ${config.kafka.topic}` : ''
        }; auth ${config.auth.mode === 'none' ? 'NONE' : `bearer, ${tenants.size} tenant(s)`})`,
      );
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        console.log(`tooltrail collector: ${signal}, draining`);
        collector.close().then(
          () => process.exit(0),
          (err: unknown) => {
            console.error(`tooltrail collector: shutdown failed: ${(err as Error).message}`);
            process.exit(1);
          },
        );
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
}

/** Runs this same command line in a child node with the collector's V8 flags; resolves never (exits with it). */
function runWithNodeFlags(): Promise<void> {
  const child = spawn(process.execPath, [...COLLECTOR_NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [REEXEC_ENV]: 'child' },
  });
  // A terminal's Ctrl-C reaches both processes; a supervisor's SIGTERM may reach only this one: relay both.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  return new Promise(() => {
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}
