// Types of test-lanes.js for the TypeScript that imports it (its unit test).
export type LaneKind = 'unit' | 'self-contained' | 'shared';
export interface Stage {
  kind: LaneKind;
  files: string[];
  concurrency: number;
}
export interface Lane {
  name: string;
  stages: Stage[];
}
export interface Plan {
  lanes: Lane[];
  /** The self-contained files, taken one at a time by whichever lane is done with its stages. */
  pool: string[];
}
export declare const SELF_CONTAINED_MARKER: string;
export declare function readHead(file: string): string;
export declare function laneOf(file: string, head: string): LaneKind;
export declare function planLanes(files: string[], headOf: (file: string) => string, env?: NodeJS.ProcessEnv): Plan;
