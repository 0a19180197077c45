/** The Merkle log's configuration from the environment (audit/log/config.ts): the witness sinks and bad keys. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogConfigError, logConfigFromEnv } from '../../../audit/log/config.ts';

describe('the audit log configuration', () => {
  it('a Kafka witness topic goes to the pipeline brokers named by the connection settings', () => {
    const c = logConfigFromEnv({
      TOOLTRAIL_WITNESS_KAFKA_TOPIC: 'tooltrail.witness',
      TOOLTRAIL_KAFKA_BROKERS: 'k1:9092,k2:9092',
    });
    assert.deepEqual(
      { topic: c.witnessKafka?.topic, brokers: c.witnessKafka?.brokers },
      { topic: 'tooltrail.witness', brokers: ['k1:9092', 'k2:9092'] },
    );
    assert.equal(logConfigFromEnv({}).witnessKafka, undefined, 'no topic, no Kafka witness');
  });

  it('names every bad key at once, the Kafka topic among them', () => {
    assert.throws(
      () => logConfigFromEnv({ TOOLTRAIL_WITNESS_KAFKA_TOPIC: 'bad topic', TOOLTRAIL_WITNESS_URLS: 'ftp://x' }),
      (err: unknown) =>
        err instanceof LogConfigError &&
        /TOOLTRAIL_WITNESS_KAFKA_TOPIC must be a Kafka topic name/.test(err.message) &&
        /TOOLTRAIL_WITNESS_URLS: ftp:\/\/x is not an http\(s\) URL/.test(err.message),
    );
  });
});
