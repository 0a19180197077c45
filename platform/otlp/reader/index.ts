/** The one streaming OTLP trace protobuf reader (read.ts), what it records (tape.ts) and the wire tags (tags.ts). */
export { OUTSIDE, readTraceRequest, type TraceRequestVisitor } from './read.ts';
export * from './tags.ts';
export * from './tape.ts';
