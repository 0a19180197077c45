/**
 * `tooltrail services up | down | status`: the local Kafka, ClickHouse, Alertmanager and PostgreSQL
 * (services/README.md). The options are declared here; what a command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import type { ServicesStatusFlags, ServicesUpFlags } from './run.ts';

const run = () => import('./run.ts');

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
    .action(async (flags: ServicesUpFlags) => (await run()).up(flags));

  services
    .command('down')
    .description('stop the local services (external ones are left alone)')
    .option('--purge', 'also delete their data (the cached Kafka jars are kept)')
    .action(async (flags: { purge?: boolean }) => (await run()).down(flags));

  services
    .command('status')
    .description('report each service; exits non-zero when one is unhealthy')
    .option('--json', 'print JSON')
    .action(async (flags: ServicesStatusFlags) => (await run()).status(flags));
}
