/** Writes docs/contract.schema.json from the zod schema: `node --import tsx instrumentation/export-json-schema.ts`. */
import { writeFileSync } from 'node:fs';
import { contractJsonSchema } from './json-schema.ts';

export const CONTRACT_SCHEMA_PATH = new URL('../docs/contract.schema.json', import.meta.url);

export function renderContractJsonSchema(): string {
  return `${JSON.stringify(contractJsonSchema(), null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(CONTRACT_SCHEMA_PATH, renderContractJsonSchema());
  console.log(`wrote ${CONTRACT_SCHEMA_PATH.pathname}`);
}
