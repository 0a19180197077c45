/** What `tooltrail services up | down | status` do (declared in command.ts, loaded when one runs). */
import { loadServicesConfig } from '../../../services/config.ts';
import { brokerServesSaslSsl, prepareLocalSaslSsl } from '../../../services/kafka/sasl-ssl.ts';
import { servicesDown, servicesStatus, servicesUp } from '../../../services/manager.ts';

export interface ServicesUpFlags {
  kafkaBrokers?: string;
  kafkaSaslSsl?: boolean;
}

export interface ServicesStatusFlags {
  json?: boolean;
}

/** `tooltrail services up`: exit code 1 when a service did not come up. */
export async function up(opts: ServicesUpFlags): Promise<void> {
  const env = {
    ...process.env,
    ...(opts.kafkaBrokers ? { TOOLTRAIL_KAFKA_BROKER_COUNT: opts.kafkaBrokers } : {}),
    ...(opts.kafkaSaslSsl ? { TOOLTRAIL_KAFKA_SASL_SSL: 'true' } : {}),
  };
  const config = loadServicesConfig(env);
  const secure = prepareLocalSaslSsl(config);
  if (secure) config.kafka.saslSsl = secure.listener;
  const results = await servicesUp(config);
  for (const r of results) {
    if (r.error) console.error(`tooltrail: ${r.error.message}`);
    else console.log(`${r.name.padEnd(13)} ${r.outcome.padEnd(16)} ${r.endpoint}`);
  }
  const kafka = results.find((r) => r.name === 'kafka');
  if (secure && kafka && !kafka.error) {
    const a = secure.access;
    if (kafka.outcome === 'already running' && !brokerServesSaslSsl(config.home, secure.listener.port)) {
      console.error(
        'tooltrail: kafka: the broker already runs without the SASL_SSL listener — `tooltrail services down`, then `services up --kafka-sasl-ssl`',
      );
      process.exitCode = 1;
    } else {
      // Never the password itself: it stays in its 0600 file.
      console.log(`kafka SASL_SSL ${a.bootstrap} (TLS; SASL PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)`);
      console.log(`  CA file      ${a.caFile}`);
      console.log(`  user         ${a.username}, its generated local-dev password in ${a.passwordFile} (mode 0600)`);
      console.log(`  connect      set -a; . ${a.envFile}; set +a   (SCRAM-SHA-512, the password read from its file)`);
    }
  }
  if (results.some((r) => r.error)) process.exitCode = 1;
}

/** `tooltrail services down`. */
export async function down(opts: { purge?: boolean }): Promise<void> {
  for (const r of await servicesDown(loadServicesConfig(), opts.purge ?? false)) {
    console.log(`${r.name.padEnd(13)} ${r.stopped ? 'stopped' : 'not running'}`);
  }
}

/** `tooltrail services status`: exit code 1 when a service is unhealthy. */
export async function status(opts: ServicesStatusFlags): Promise<void> {
  const statuses = await servicesStatus(loadServicesConfig());
  if (opts.json) console.log(JSON.stringify(statuses, null, 2));
  else {
    for (const s of statuses) {
      const pid = s.pid ? `pid ${s.pid}` : '';
      console.log(
        `${s.name.padEnd(13)} ${(s.healthy ? 'healthy' : 'UNHEALTHY').padEnd(10)} ${s.mode.padEnd(9)} ${s.endpoint} ${pid}`,
      );
    }
  }
  if (statuses.some((s) => !s.healthy)) process.exitCode = 1;
}
