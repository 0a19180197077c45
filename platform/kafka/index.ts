/**
 * Our one Kafka module: callers see types.ts only. Nothing outside platform/kafka/platformatic/ imports
 * @platformatic/kafka (chaos/kafka-reassign.ts aside: a chaos-only admin call through its public protocol API).
 */
export * from './admin.ts';
export * from './choice.ts';
export * from './client.ts';
export * from './compression.ts';
export * from './consumer.ts';
export * from './errors.ts';
export * from './message-id.ts';
export * from './producer.ts';
export * from './security.ts';
export * from './tls.ts';
export * from './topic-reader.ts';
export * from './types.ts';
