/** Which Kafka client runs: the choices, the default, and the environment key that picks one. */
import { KAFKA_CLIENTS, type KafkaClientKind } from './types.ts';

export const KAFKA_CLIENT_ENV = 'TOOLTRAIL_KAFKA_CLIENT';
/** The client used when none is chosen (docs/performance.md, "The Kafka client"). */
export const DEFAULT_KAFKA_CLIENT: KafkaClientKind = 'platformatic';

export class KafkaClientChoiceError extends Error {
  override name = 'KafkaClientChoiceError';
}

export const isKafkaClientKind = (v: unknown): v is KafkaClientKind =>
  typeof v === 'string' && (KAFKA_CLIENTS as readonly string[]).includes(v);

/** The client `env` chooses; throws naming the key when it names none of KAFKA_CLIENTS. */
export function kafkaClientKindOf(env: NodeJS.ProcessEnv): KafkaClientKind {
  const value = env[KAFKA_CLIENT_ENV];
  if (value === undefined || value === '') return DEFAULT_KAFKA_CLIENT;
  if (isKafkaClientKind(value)) return value;
  throw new KafkaClientChoiceError(`${KAFKA_CLIENT_ENV}: must be one of ${KAFKA_CLIENTS.join(', ')} (got "${value}")`);
}
