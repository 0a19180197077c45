/** A recorded result judged by the shared shape readers (contract/result-shapes.ts); a cut one stays unknown. */
import { type ReadCompleteness, readResultShapes, type ToolPolicy } from '../../contract/index.ts';
import { readRecorded } from './payload.ts';

/** The result's completeness; undefined when nothing was recorded. `error`: an MCP result said `isError`. */
export function judgeResult(
  resultText: string | undefined,
  policy: ToolPolicy | undefined,
): ReadCompleteness | { error: true } | undefined {
  if (resultText === undefined) return undefined;
  const recorded = readRecorded(resultText);
  if (recorded.error) return { error: true };
  return readResultShapes(recorded.value, policy, {
    unknownMessage: recorded.cut
      ? 'the recorded result was cut by its emitter'
      : 'the result said nothing about completeness',
  });
}

/** The cursor of the next page the result offers, if any. */
export function continuationCursor(resultText: string | undefined, policy: ToolPolicy | undefined): string | undefined {
  const judged = judgeResult(resultText, policy);
  if (judged === undefined || 'error' in judged) return undefined;
  const c = judged.result.completeness.continuation;
  return c.kind === 'next_cursor' ? c.cursor : undefined;
}

/** A JSON pointer (`/ids`, `/a~1b`) as the dotted path valuesAt walks; a dotted path as it is. */
export function dotted(path: string): string {
  if (!path.startsWith('/')) return path;
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}
