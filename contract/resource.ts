/** OpenTelemetry resource attributes (stable semantic conventions) the pipeline reads. */
export const OtelResource = {
  /** The emitting service; stored as its own column by the ingest (as the OTel ClickHouse exporter does). */
  SERVICE_NAME: 'service.name',
} as const;
