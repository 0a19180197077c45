/**
 * Direct mode: the collector hands accepted requests to the ClickHouse writer in the same process. The ingest's
 * DirectSink reports "ClickHouse did not store it" as StoreUnavailableError; the collector answers 503 for
 * SinkUnavailableError. This adapter is the one place that maps the two, so neither stage imports the other.
 */
import { SinkUnavailableError, type SpanSink } from '../../collector/index.ts';
import { type DirectSink, StoreUnavailableError } from '../../ingest/direct.ts';

export function directSpanSink(direct: DirectSink): SpanSink {
  return {
    name: direct.name,
    async write(request, context) {
      try {
        await direct.write(request, { tenant: context.tenant });
      } catch (err) {
        if (err instanceof StoreUnavailableError) throw new SinkUnavailableError(err.message, err.retryAfterSeconds);
        throw err;
      }
    },
    ready: () => direct.ready(),
    close: () => direct.close(),
  };
}
