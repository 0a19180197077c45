/** The one streaming OTLP trace protobuf reader (read.ts) and what it records (tape.ts). */
export { OUTSIDE, readTraceRequest, type TraceRequestVisitor } from './read.ts';
export * from './tape.ts';
