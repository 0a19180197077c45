/**
 * Prompt, completion, message and payload attributes (contract/emitters.ts `isContentKey`) on spans that are not
 * tool calls: kept as an HMAC-SHA256 of their text when a payload key is configured, else not kept at all. Tool
 * arguments and results are in them too (an LLM span lists the calls it asked for and the results it was given).
 */
import { createHmac } from 'node:crypto';
import { isContentKey } from '../../contract/index.ts';
import type { KeyValue } from '../../platform/otlp/index.ts';

export function payloadHash(key: string, text: string): string {
  return `hmac-sha256:${createHmac('sha256', key).update(text).digest('hex')}`;
}

/** `attrs` without content, or the same array when it carries none (the common case allocates nothing). */
export function withoutContent(
  attrs: KeyValue[],
  hashKey: string | undefined,
  text: (kv: KeyValue) => string,
): KeyValue[] {
  let out: KeyValue[] | undefined;
  for (let i = 0; i < attrs.length; i++) {
    const kv = attrs[i]!;
    const content = kv.key != null && isContentKey(kv.key);
    if (content && out === undefined) out = attrs.slice(0, i);
    if (out === undefined) continue;
    if (!content) out.push(kv);
    else if (hashKey !== undefined) out.push({ key: kv.key, value: { stringValue: payloadHash(hashKey, text(kv)) } });
  }
  return out ?? attrs;
}
