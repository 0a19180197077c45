/** RFC 6901 JSON pointers into tool arguments (policies name targets and cursors with them). */

/** RFC 6901: `~1` is `/`, `~0` is `~`; array indices are decimal. */
export function atPointer(
  doc: unknown,
  pointer: string,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (pointer === '') return { ok: true, value: doc };
  if (!pointer.startsWith('/')) return { ok: false, problem: `"${pointer}" is not a JSON pointer` };
  let at: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(token) && Number(token) < at.length) {
      at = at[Number(token)];
    } else if (typeof at === 'object' && at !== null && !Array.isArray(at) && Object.hasOwn(at, token)) {
      at = (at as Record<string, unknown>)[token];
    } else {
      return { ok: false, problem: `the arguments have nothing at ${pointer}` };
    }
  }
  return { ok: true, value: at };
}
