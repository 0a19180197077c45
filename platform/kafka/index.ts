/** Our one Kafka module. Nothing outside platform/kafka/ imports kafkajs. */
export * from './admin.ts';
export * from './client.ts';
export * from './consumer.ts';
export * from './errors.ts';
export * from './message-id.ts';
export * from './producer.ts';
export * from './security.ts';
