/**
 * What `tooltrail collector` does (declared in command.ts, loaded when it runs): runs the OTLP/HTTP collector until
 * SIGINT/SIGTERM, then stops accepting, lets in-flight requests finish (each answered only after Kafka
 * acknowledged), flushes and disconnects. When the process lacks the collector's V8 flags (collector/node-flags.ts),
 * it validates the configuration, then re-executes itself with them and relays signals and the exit code.
 */
import { spawn } from 'node:child_process';
import { CollectorConfigError, type CollectorConfigInput, loadCollectorConfig } from '../../../collector/config.ts';
import { COLLECTOR_NODE_FLAGS, hasCollectorNodeFlags, REEXEC_ENV } from '../../../collector/node-flags.ts';
import { ConfigError } from '../../../platform/connections.ts';

export interface CollectorFlags {
  config?: string;
  host?: string;
  port?: string;
  auth?: boolean;
  topic?: string;
  sink?: string;
}

/** `tooltrail collector`: a bad configuration is a ConfigError (one line), before anything listens. */
export async function collector(flags: CollectorFlags): Promise<void> {
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
  // Loaded here, not above: the parent that only re-executes itself with the V8 flags never needs the server.
  const { createCollector } = await import('../../../collector/factory.ts');
  // The logger stays at warn; what senders get wrong is the operator's to read, so it goes to stdout.
  const running = await createCollector(config, { logger: { level: 'warn' }, senders: (l) => console.log(l) });
  const address = await running.start();
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
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`tooltrail collector: shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
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
