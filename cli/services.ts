import type { Command } from 'commander';

// Loaded when the command runs, so that `tooltrail --help` and the other commands do not pay for it.
const load = async () => ({ ...(await import('../services/config.ts')), ...(await import('../services/manager.ts')) });

export function registerServicesCommand(program: Command): void {
  const services = program
    .command('services')
    .description(
      'start, stop and check the local Kafka, ClickHouse, Alertmanager and PostgreSQL (data under .tooltrail/)',
    );

  services
    .command('up')
    .description('start the local services (idempotent); each is health-checked before this returns')
    .option(
      '--kafka-brokers <n>',
      'run a replicated Kafka cluster of n brokers (RF min(3, n), min.insync.replicas 2 from 3 brokers); default 1, or TOOLTRAIL_KAFKA_BROKER_COUNT',
    )
    .option(
      '--kafka-sasl-ssl',
      'add a SASL_SSL listener to the local broker (TLS, SASL PLAIN and SCRAM-SHA-256/512) on TOOLTRAIL_KAFKA_SASL_SSL_PORT (default 9094), or TOOLTRAIL_KAFKA_SASL_SSL=true',
    )
    .action(async (opts: { kafkaBrokers?: string; kafkaSaslSsl?: boolean }) => {
      const { loadServicesConfig, servicesUp } = await load();
      const { prepareLocalSaslSsl, brokerServesSaslSsl } = await import('../services/kafka/sasl-ssl.ts');
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
          console.log(
            `  user         ${a.username}, its generated local-dev password in ${a.passwordFile} (mode 0600)`,
          );
          console.log(
            `  connect      set -a; . ${a.envFile}; set +a   (SCRAM-SHA-512, the password read from its file)`,
          );
        }
      }
      if (results.some((r) => r.error)) process.exitCode = 1;
    });

  services
    .command('down')
    .description('stop the local services (external ones are left alone)')
    .option('--purge', 'also delete their data (the cached Kafka jars are kept)')
    .action(async (opts: { purge?: boolean }) => {
      const { loadServicesConfig, servicesDown } = await load();
      for (const r of await servicesDown(loadServicesConfig(), opts.purge ?? false)) {
        console.log(`${r.name.padEnd(13)} ${r.stopped ? 'stopped' : 'not running'}`);
      }
    });

  services
    .command('status')
    .description('report each service; exits non-zero when one is unhealthy')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { loadServicesConfig, servicesStatus } = await load();
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
    });
}
