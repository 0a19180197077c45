/**
 * SQL lives in `.sql` files next to the code that runs them. Each module gets a loader for its own folder that
 * reads a file once and keeps it; values are always bound by the caller, never spliced into the text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `sqlFiles(new URL('./sql/', import.meta.url))('callsOfSession')` reads `./sql/callsOfSession.sql`. */
export function sqlFiles(dir: URL): (name: string) => string {
  const cache = new Map<string, string>();
  return (name) => {
    let text = cache.get(name);
    if (text === undefined) {
      text = readFileSync(fileURLToPath(new URL(`${name}.sql`, dir)), 'utf8');
      cache.set(name, text);
    }
    return text;
  };
}
