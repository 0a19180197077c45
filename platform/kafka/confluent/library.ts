/**
 * @confluentinc/kafka-javascript (librdkafka in a native addon), loaded only by this folder, only when chosen: the
 * version tooltrail is tested with is asserted at load, and an addon that is missing or was built for another Node
 * is reported in one line that says how to get it.
 */
import { createRequire } from 'node:module';
import type * as Confluent from '@confluentinc/kafka-javascript';
import { assertPinned } from '../pinned.ts';

export const CONFLUENT_PACKAGE = '@confluentinc/kafka-javascript';
/** The version package.json pins (an optional dependency: a native build). */
export const CONFLUENT_VERSION = '1.10.1';

const require = createRequire(import.meta.url);

function loadLibrary(): typeof Confluent {
  let version: string;
  let library: typeof Confluent;
  try {
    version = (require(`${CONFLUENT_PACKAGE}/package.json`) as { version: string }).version;
    library = require(CONFLUENT_PACKAGE) as typeof Confluent;
  } catch (err) {
    const why = (err as Error).message.split('\n')[0];
    throw new Error(
      `the confluent Kafka client needs ${CONFLUENT_PACKAGE} ${CONFLUENT_VERSION} built for node ${process.version} (${why}); see docs/performance.md, "The Kafka client", for how to build it`,
    );
  }
  assertPinned(CONFLUENT_PACKAGE, version, CONFLUENT_VERSION);
  return library;
}

const library = loadLibrary();
export const { KafkaJS } = library;
/** The node-rdkafka style producer: its metadata request lists the brokers (the KafkaJS-style Admin does not). */
export const RdkafkaProducer = library.Producer;
