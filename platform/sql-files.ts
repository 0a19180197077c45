/**
 * SQL lives in `.sql` files next to the code that runs them. Each module gets a loader for its own folder that
 * reads a file once and keeps it; values are always bound by the caller, never spliced into the text. A part two
 * files share is written once, in `fragments/NAME.sql` of the same folder, and composed in with `{{include:NAME}}`
 * (text only: fragments hold bound parameters too, never values).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const INCLUDE_RE = /^([ \t]*)\{\{include:([a-z_]+)\}\}/gm;

/** `sqlFiles(new URL('./sql/', import.meta.url))('calls_of_session')` reads `./sql/calls_of_session.sql`, composed. */
export function sqlFiles(dir: URL): (name: string) => string {
  const cache = new Map<string, string>();
  return (name) => {
    let text = cache.get(name);
    if (text === undefined) {
      text = composeFragments(readFileSync(fileURLToPath(new URL(`${name}.sql`, dir)), 'utf8'), `${name}.sql`, dir);
      cache.set(name, text);
    }
    return text;
  };
}

/**
 * `{{include:NAME}}` (alone on its line) replaced by `<dir>/fragments/NAME.sql`, indented as the include line;
 * fragments may include others, never themselves.
 */
export function composeFragments(text: string, file: string, dir: URL, including: readonly string[] = []): string {
  return text.replace(INCLUDE_RE, (_m, indent: string, fragment: string) => {
    if (including.includes(fragment)) throw new Error(`${file}: fragment ${fragment} includes itself`);
    let body: string;
    try {
      body = readFileSync(fileURLToPath(new URL(`fragments/${fragment}.sql`, dir)), 'utf8');
    } catch {
      throw new Error(`${file} includes fragments/${fragment}.sql, which does not exist`);
    }
    const composed = composeFragments(body.trimEnd(), `fragments/${fragment}.sql`, dir, [...including, fragment]);
    return composed
      .split('\n')
      .map((line) => (line === '' ? line : indent + line))
      .join('\n');
  });
}
