// Types of test-output.js for the TypeScript that imports it (its unit test).
export interface LaneWriter {
  line(text: string): void;
  end(): void;
}
export declare class LaneOutput {
  constructor(write: (line: string) => void);
  lane(): LaneWriter;
  flush(): void;
}
export type Summary = Partial<
  Record<'tests' | 'suites' | 'pass' | 'fail' | 'cancelled' | 'skipped' | 'todo' | 'duration_ms', number>
>;
export declare class SummaryFilter {
  push(line: string): string[];
  end(): { lines: string[]; summary: Summary | undefined };
}
export declare function summaryLines(summaries: Summary[], durationMs: number): string[];
