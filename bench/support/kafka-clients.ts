/** The benches' `--clients` option: the Kafka clients a run alternates, every name checked. */
import {
  isKafkaClientKind,
  KAFKA_CLIENTS,
  KAFKA_COMPRESSIONS,
  type KafkaClientKind,
  type KafkaCompression,
} from '../../platform/kafka/index.ts';

export function clientsOf(list: string | undefined): KafkaClientKind[] {
  const clients = (list ?? '').split(',').filter(Boolean);
  const bad = clients.filter((c) => !isKafkaClientKind(c));
  if (bad.length > 0 || clients.length === 0) {
    throw new Error(`--clients: must list some of ${KAFKA_CLIENTS.join(', ')} (got "${list}")`);
  }
  return clients as KafkaClientKind[];
}

/** A client with the codec its producer compresses with; `label` is how reports name it. */
export interface KafkaVariant {
  client: KafkaClientKind;
  compression: KafkaCompression;
  label: string;
}

/** `platformatic,platformatic:gzip`: each client, with its own codec or else `compression`. */
export function variantsOf(list: string | undefined, compression: KafkaCompression): KafkaVariant[] {
  const entries = (list ?? '').split(',').filter(Boolean);
  if (entries.length === 0) throw new Error(`--clients: must list some of ${KAFKA_CLIENTS.join(', ')}`);
  return entries.map((entry) => {
    const [client, codec = compression] = entry.split(':');
    if (!isKafkaClientKind(client) || !(KAFKA_COMPRESSIONS as readonly string[]).includes(codec)) {
      throw new Error(
        `--clients: "${entry}" is not client[:codec] with a client of ${KAFKA_CLIENTS.join(', ')} and a codec of ${KAFKA_COMPRESSIONS.join(', ')}`,
      );
    }
    return { client, compression: codec as KafkaCompression, label: codec === compression ? client : entry };
  });
}

/** The codec `--compression` names, checked. */
export function compressionOf(value: string | undefined): KafkaCompression {
  if (!(KAFKA_COMPRESSIONS as readonly string[]).includes(value ?? '')) {
    throw new Error(`--compression: must be one of ${KAFKA_COMPRESSIONS.join(', ')} (got "${value}")`);
  }
  return value as KafkaCompression;
}
