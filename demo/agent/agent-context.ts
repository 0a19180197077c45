/** What a cleanup strategy works with: its tools, its session, the recorder, and the ids named in its task. */
import type { Session } from './mutator.ts';
import type { RunRecorder } from './recorder.ts';
import type { CleanupTools } from './toolset.ts';

export interface AgentContext {
  tools: CleanupTools;
  session: Session;
  rec: RunRecorder;
  ticketId: string;
  controlId: string;
}

/** The resource every account read and deletion is scoped to. */
export { SERVICE_ACCOUNTS } from '../world/index.ts';

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
