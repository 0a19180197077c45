/** A Kafka client library is used at the version it was tested with: another one is refused in one line at load. */
export class KafkaClientVersionError extends Error {
  override name = 'KafkaClientVersionError';
}

export function assertPinned(library: string, installed: string, pinned: string): void {
  if (installed !== pinned) {
    throw new KafkaClientVersionError(
      `${library} ${installed} is installed, tooltrail is tested with ${pinned} (package.json pins it): run npm ci`,
    );
  }
}
