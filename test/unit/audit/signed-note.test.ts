import assert from 'node:assert/strict';
import { createHash, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkpointText, parseCheckpoint } from '../../../audit/log/checkpoint.ts';
import {
  cosign,
  generateNoteKey,
  openNote,
  parseSigner,
  parseVerifier,
  signNote,
  splitNote,
} from '../../../audit/log/note.ts';

const text = `tooltrail/acme/writer-a\n42\n${Buffer.alloc(32, 7).toString('base64')}\n`;

describe('C2SP signed notes and checkpoints (audit/log/note.ts, checkpoint.ts)', () => {
  it('signs the text with Ed25519 under the C2SP key id: SHA-256(name || 0x0A || 0x01 || public key)[:4]', () => {
    const key = generateNoteKey('log.example/acme');
    const signer = parseSigner(key.signer);
    const note = signNote(text, signer);
    assert.ok(note.startsWith(`${text}\n\u2014 log.example/acme `));
    const { signatures } = splitNote(note);
    const v = parseVerifier(key.verifier);
    const raw = v.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const id = createHash('sha256')
      .update('log.example/acme\n')
      .update(Buffer.from([1]))
      .update(raw)
      .digest();
    assert.equal(signatures[0]!.keyId, id.subarray(0, 4).toString('hex'));
    assert.ok(verify(null, Buffer.from(text), v.publicKey, signatures[0]!.signature), 'plain Ed25519 over the text');
    assert.deepEqual(openNote(note, [v]), { ok: true, text, verifiedBy: [`log.example/acme+${v.keyId}`] });
  });

  it('refuses an edited text, an unknown key, and a bad signature by a trusted key', () => {
    const key = generateNoteKey('log.example');
    const v = parseVerifier(key.verifier);
    const note = signNote(text, parseSigner(key.signer));
    const edited = note.replace('\n42\n', '\n43\n');
    assert.equal(openNote(edited, [v]).ok, false);
    assert.equal((openNote(edited, [v]) as { reason: string }).reason, 'signature_invalid');
    const other = parseVerifier(generateNoteKey('log.example').verifier);
    assert.equal((openNote(note, [other]) as { reason: string }).reason, 'unknown_key');
    assert.equal((openNote('no blank line\n', [v]) as { reason: string }).reason, 'malformed');
  });

  it('rotates keys: a note cosigned by the old and the new key opens with either verifier', () => {
    const old = generateNoteKey('log.example');
    const next = generateNoteKey('log.example');
    const note = cosign(signNote(text, parseSigner(old.signer)), parseSigner(next.signer));
    assert.equal(splitNote(note).signatures.length, 2);
    assert.ok(openNote(note, [parseVerifier(old.verifier)]).ok);
    assert.ok(openNote(note, [parseVerifier(next.verifier)]).ok);
  });

  it('reads keys in the Go sumdb/note text form and names what is wrong with a bad one', () => {
    const key = generateNoteKey('log.example');
    assert.match(key.signer, /^PRIVATE\+KEY\+log\.example\+[0-9a-f]{8}\+/);
    assert.match(key.verifier, /^log\.example\+[0-9a-f]{8}\+/);
    assert.throws(
      () => parseVerifier(`log.example+00000000+${key.verifier.split('+').slice(2).join('+')}`),
      /does not match/,
    );
    assert.throws(() => parseSigner('KEY+x'), /PRIVATE\+KEY/);
    assert.throws(() => generateNoteKey('has space'), /spaces/);
  });

  it('round-trips a checkpoint and refuses a malformed size or root', () => {
    const c = parseCheckpoint(text);
    assert.equal(c.origin, 'tooltrail/acme/writer-a');
    assert.equal(c.size, 42);
    assert.equal(checkpointText(c), text);
    assert.throws(() => parseCheckpoint('o\n042\nAAAA\n'), /tree size/);
    assert.throws(() => parseCheckpoint('o\n1\nAAAA\n'), /root hash/);
  });
});
