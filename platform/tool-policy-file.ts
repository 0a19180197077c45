/** Reads a tool policy file (YAML, or JSON by its extension) into the validated policy (contract/tool-policy.ts). */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { PolicyError, type PolicyFile, parsePolicy } from '../contract/index.ts';

export function loadPolicyFile(file: string): PolicyFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PolicyError([`policy file ${file}: ${(err as Error).message}`]);
  }
  let value: unknown;
  try {
    value = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new PolicyError([
      `policy file ${file}: not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    ]);
  }
  return parsePolicy(value, file);
}
