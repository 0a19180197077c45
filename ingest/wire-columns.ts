/** The ingest's column path: OTLP protobuf bytes -> Native column bytes (ingest/columns/). */
export { assembleBlocks, ColumnArena, type ColumnsMark, type EncodedRows } from './columns/arena.ts';
export { decodeToColumns } from './columns/decode.ts';
