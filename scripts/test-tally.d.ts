// Types of test-tally.js for the TypeScript that imports it (its unit test).
export declare const TALLY_MARKER: string;
export interface FileTally {
  passed: number;
  failed: number;
  skipped: number;
  summaryTests: number | null;
  /** The file's process wall time, from its own test:complete event. */
  durationMs: number | null;
  missing: string[];
}
export interface TallyData {
  files: Record<string, FileTally>;
}
export declare class Tally {
  add(event: { type: string; data?: Record<string, unknown> }): void;
  toJSON(): TallyData;
}
export declare function uncountedFiles(tally: TallyData, files: string[]): { file: string; problem: string }[];
export default function tally(source: AsyncIterable<unknown>): AsyncGenerator<string>;
