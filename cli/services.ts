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
    .action(async (opts: { kafkaBrokers?: string }) => {
      const { loadServicesConfig, servicesUp } = await load();
      const env = opts.kafkaBrokers ? { ...process.env, TOOLTRAIL_KAFKA_BROKER_COUNT: opts.kafkaBrokers } : process.env;
      const results = await servicesUp(loadServicesConfig(env));
      for (const r of results) {
        if (r.error) console.error(`tooltrail: ${r.error.message}`);
        else console.log(`${r.name.padEnd(13)} ${r.outcome.padEnd(16)} ${r.endpoint}`);
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
