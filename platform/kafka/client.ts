/**
 * The one place kafkajs is constructed. kafkajs is in maintenance mode; keeping every Kafka call behind
 * platform/kafka/ makes a measured switch to another client a change to this folder only.
 */
import kafkajs from 'kafkajs';
import './throttle-timer.ts';

const { Kafka, logLevel } = kafkajs;
export type KafkaClient = InstanceType<typeof Kafka>;

export interface KafkaClientOptions {
  brokers: string[];
  clientId: string;
  /** Connection timeout per broker; kept short so a down broker is reported quickly. */
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Retries of kafkajs itself; callers that implement their own backpressure set 0. */
  retries?: number;
  /** Log kafkajs errors to stderr (default) or stay silent (tests that stop brokers on purpose). */
  quiet?: boolean;
}

export function createKafkaClient(options: KafkaClientOptions): KafkaClient {
  return new Kafka({
    brokers: options.brokers,
    clientId: options.clientId,
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: { retries: options.retries ?? 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    logLevel: options.quiet ? logLevel.NOTHING : logLevel.ERROR,
  });
}
