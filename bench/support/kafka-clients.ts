/** The benches' `--clients` option: the Kafka clients a run alternates, every name checked. */
import { isKafkaClientKind, KAFKA_CLIENTS, type KafkaClientKind } from '../../platform/kafka/index.ts';

export function clientsOf(list: string | undefined): KafkaClientKind[] {
  const clients = (list ?? '').split(',').filter(Boolean);
  const bad = clients.filter((c) => !isKafkaClientKind(c));
  if (bad.length > 0 || clients.length === 0) {
    throw new Error(`--clients: must list some of ${KAFKA_CLIENTS.join(', ')} (got "${list}")`);
  }
  return clients as KafkaClientKind[];
}
