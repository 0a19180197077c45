/**
 * The checkpoint text of a log (C2SP tlog-checkpoint): the origin line, the tree size in decimal, the root hash in
 * base64, then optional extension lines. Signed as a note (note.ts).
 */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  extensions: string[];
}

export function checkpointText(c: Checkpoint): string {
  return `${[c.origin, String(c.size), c.root.toString('base64'), ...c.extensions].join('\n')}\n`;
}

/** Parses a checkpoint text; throws naming the line that is wrong. */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('checkpoint must end with a newline');
  lines.pop();
  const [origin = '', size = '', root = '', ...extensions] = lines;
  if (origin.length === 0) throw new Error('checkpoint line 1 (origin) is empty');
  if (!/^(0|[1-9]\d{0,15})$/.test(size) || !Number.isSafeInteger(Number(size)))
    throw new Error('checkpoint line 2 (tree size) is not a decimal size');
  const hash = Buffer.from(root, 'base64');
  if (hash.length !== 32 || hash.toString('base64') !== root)
    throw new Error('checkpoint line 3 (root hash) is not a base64 SHA-256 hash');
  return { origin, size: Number(size), root: hash, extensions };
}
