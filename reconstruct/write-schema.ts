/**
 * Writes reconstruct/reconstruction.schema.json from the zod schema (run after changing timeline.ts):
 *   node --import tsx reconstruct/write-schema.ts
 * A unit test fails while the checked-in file differs from what the schema generates.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { reconstructionJsonSchema } from './timeline.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('./reconstruction.schema.json', import.meta.url));

export function schemaFileText(): string {
  return `${JSON.stringify(reconstructionJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, schemaFileText());
  console.log(`wrote ${SCHEMA_FILE}`);
}
