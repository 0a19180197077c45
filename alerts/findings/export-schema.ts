/**
 * Writes finding.schema.json (the JSON Schema of `tooltrail findings --json`) from the zod schema, so the two
 * never drift (a test compares them): `node --import tsx alerts/findings/export-schema.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { FindingListSchema } from './finding.ts';

export const SCHEMA_PATH = fileURLToPath(new URL('./finding.schema.json', import.meta.url));

export function findingsJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(FindingListSchema, { target: 'draft-2020-12' }),
    $id: 'https://tooltrail.dev/schemas/findings.schema.json',
    title: 'tooltrail findings --json',
    description: 'The current findings of the tooltrail detectors (alerts/findings/finding.ts).',
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_PATH, `${JSON.stringify(findingsJsonSchema(), null, 2)}\n`);
  console.log(`wrote ${SCHEMA_PATH}`);
}
