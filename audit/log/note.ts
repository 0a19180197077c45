/**
 * C2SP signed notes with Ed25519 (Node's crypto does the signing): a text ending in a newline, a blank line, and
 * signature lines `— <key name> <base64(key id || signature)>`. The key id is the first 4 bytes of
 * SHA-256(name || 0x0A || 0x01 || public key). Keys are text, as Go's `golang.org/x/mod/sumdb/note` writes them:
 * a signer `PRIVATE+KEY+<name>+<hex id>+<base64(0x01 || seed)>`, a verifier `<name>+<hex id>+<base64(0x01 || public
 * key)>`, so checkpoints can be checked by any C2SP-aware tool.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';

const ED25519 = 0x01;
const EM_DASH = '\u2014';
// DER prefixes that wrap a raw 32-byte Ed25519 seed (PKCS#8) or public key (SPKI) for Node's key import.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface NoteSigner {
  name: string;
  /** The 4-byte key id as 8 hex digits. */
  keyId: string;
  privateKey: KeyObject;
  verifier: NoteVerifier;
}

export interface NoteVerifier {
  name: string;
  keyId: string;
  publicKey: KeyObject;
  /** The verifier key as text (`<name>+<hex id>+<base64>`). */
  text: string;
}

/** A key name: non-empty, no whitespace, no `+`. */
export function keyNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (/[\s+]/u.test(name)) return 'must contain neither spaces nor "+"';
  return undefined;
}

function keyIdOf(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from(`${name}\n`, 'utf8'))
    .update(Buffer.from([ED25519]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
}

function verifierOf(name: string, publicKey: Buffer): NoteVerifier {
  const id = keyIdOf(name, publicKey);
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  const encoded = Buffer.concat([Buffer.from([ED25519]), publicKey]).toString('base64');
  return { name, keyId: id.toString('hex'), publicKey: key, text: `${name}+${id.toString('hex')}+${encoded}` };
}

/** A fresh key pair for `name`, as the signer and verifier texts. */
export function generateNoteKey(name: string): { signer: string; verifier: string } {
  const problem = keyNameProblem(name);
  if (problem) throw new Error(`key name ${problem}`);
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);
  const pub = rawPublicKey(createPublicKey(privateKey));
  const id = keyIdOf(name, pub).toString('hex');
  const enc = Buffer.concat([Buffer.from([ED25519]), seed]).toString('base64');
  return { signer: `PRIVATE+KEY+${name}+${id}+${enc}`, verifier: verifierOf(name, pub).text };
}

/** Parses a signer key text; the error says what is wrong, never the key. */
export function parseSigner(text: string): NoteSigner {
  const parts = cut(text, 4);
  if (parts?.[0] !== 'PRIVATE' || parts[1] !== 'KEY')
    throw new Error('signer key must read PRIVATE+KEY+<name>+<hex id>+<base64 key>');
  const [, , name = '', id = '', enc = ''] = parts;
  const problem = keyNameProblem(name);
  if (problem) throw new Error(`signer key name ${problem}`);
  const raw = Buffer.from(enc, 'base64');
  if (raw.length !== 33 || raw[0] !== ED25519) throw new Error('signer key is not an Ed25519 key');
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, raw.subarray(1)]),
    format: 'der',
    type: 'pkcs8',
  });
  const verifier = verifierOf(name, rawPublicKey(createPublicKey(privateKey)));
  if (verifier.keyId !== id.toLowerCase()) throw new Error('signer key id does not match its key');
  return { name, keyId: verifier.keyId, privateKey, verifier };
}

/** Parses a verifier key text (`<name>+<hex id>+<base64(0x01 || key)>`). */
export function parseVerifier(text: string): NoteVerifier {
  const parts = cut(text, 2);
  if (!parts) throw new Error('verifier key must read <name>+<hex id>+<base64 key>');
  const [name = '', id = '', enc = ''] = parts;
  const problem = keyNameProblem(name);
  if (problem) throw new Error(`verifier key name ${problem}`);
  const raw = Buffer.from(enc, 'base64');
  if (raw.length !== 33 || raw[0] !== ED25519) throw new Error(`verifier key ${name} is not an Ed25519 key`);
  const verifier = verifierOf(name, raw.subarray(1));
  if (verifier.keyId !== id.toLowerCase()) throw new Error(`verifier key ${name}: id ${id} does not match its key`);
  return verifier;
}

/** Splits at the first `count` plus signs: the base64 key at the end may hold more. */
function cut(text: string, count: number): string[] | undefined {
  const out: string[] = [];
  let rest = text.trim();
  for (let i = 0; i < count; i++) {
    const at = rest.indexOf('+');
    if (at < 0) return undefined;
    out.push(rest.slice(0, at));
    rest = rest.slice(at + 1);
  }
  return [...out, rest];
}

function textProblem(text: string): string | undefined {
  if (!text.endsWith('\n')) return 'note text must end with a newline';
  if (text.includes('\n\n')) return 'note text must not contain a blank line';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the rule is exactly "no controls but newline"
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) return 'note text must not contain control characters';
  return undefined;
}

/** The text signed by `signer` (more signatures can be appended by `cosign`). */
export function signNote(text: string, signer: NoteSigner): string {
  const problem = textProblem(text);
  if (problem) throw new Error(problem);
  return `${text}\n${signatureLine(text, signer)}`;
}

function signatureLine(text: string, signer: NoteSigner): string {
  const sig = sign(null, Buffer.from(text, 'utf8'), signer.privateKey);
  const blob = Buffer.concat([Buffer.from(signer.keyId, 'hex'), sig]).toString('base64');
  return `${EM_DASH} ${signer.name} ${blob}\n`;
}

/** Adds a signature to a signed note (a witness's cosignature, or the new key during a rotation). */
export function cosign(note: string, signer: NoteSigner): string {
  const { text } = splitNote(note);
  return `${note}${signatureLine(text, signer)}`;
}

export interface NoteSignature {
  name: string;
  keyId: string;
  signature: Buffer;
}

/** The text and the signature lines of a signed note; throws on a malformed note. */
export function splitNote(note: string): { text: string; signatures: NoteSignature[] } {
  const at = note.lastIndexOf('\n\n');
  if (at < 0) throw new Error('not a signed note: no blank line before the signatures');
  const text = note.slice(0, at + 1);
  const problem = textProblem(text);
  if (problem) throw new Error(problem);
  const lines = note.slice(at + 2);
  if (!lines.endsWith('\n')) throw new Error('signed note must end with a newline');
  const signatures = lines
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
      if (!m) throw new Error(`malformed signature line: ${JSON.stringify(line.slice(0, 80))}`);
      const blob = Buffer.from(m[2]!, 'base64');
      if (blob.length < 5) throw new Error(`signature of ${m[1]} is too short`);
      return { name: m[1]!, keyId: blob.subarray(0, 4).toString('hex'), signature: blob.subarray(4) };
    });
  if (signatures.length === 0) throw new Error('signed note has no signature');
  if (signatures.length > 100) throw new Error('signed note has more than 100 signatures');
  return { text, signatures };
}

export type NoteCheck =
  | { ok: true; text: string; verifiedBy: string[] }
  | { ok: false; reason: 'malformed' | 'unknown_key' | 'signature_invalid'; message: string };

/**
 * Checks a signed note against trusted verifier keys: valid when at least one signature is from a trusted key and
 * every signature from a trusted key verifies (a bad signature by a known key rejects the note, as C2SP says).
 */
export function openNote(note: string, verifiers: readonly NoteVerifier[]): NoteCheck {
  let parts: ReturnType<typeof splitNote>;
  try {
    parts = splitNote(note);
  } catch (err) {
    return { ok: false, reason: 'malformed', message: (err as Error).message };
  }
  const verifiedBy: string[] = [];
  const data = Buffer.from(parts.text, 'utf8');
  for (const s of parts.signatures) {
    const v = verifiers.find((k) => k.name === s.name && k.keyId === s.keyId);
    if (!v) continue;
    if (!verify(null, data, v.publicKey, s.signature))
      return {
        ok: false,
        reason: 'signature_invalid',
        message: `the signature of ${s.name} (key ${s.keyId}) does not verify`,
      };
    verifiedBy.push(`${s.name}+${s.keyId}`);
  }
  if (verifiedBy.length === 0) {
    const names = parts.signatures.map((s) => `${s.name}+${s.keyId}`).join(', ');
    return { ok: false, reason: 'unknown_key', message: `signed by ${names}: none of them is a trusted key` };
  }
  return { ok: true, text: parts.text, verifiedBy };
}
