/**
 * Conversations: the id the client sends in a request's `_meta`, else the connection's own (one per client
 * connection, printed at start). Each conversation numbers its tool calls from 1 (`tooltrail.session.sequence`).
 */
import { randomUUID } from 'node:crypto';

/** `_meta` keys a client may carry its conversation id in, most specific first. */
export const CONVERSATION_META_KEYS = [
  'gen_ai.conversation.id',
  'io.tooltrail/conversation-id',
  'conversationId',
] as const;

const MAX_CONVERSATIONS = 10_000;

export interface Conversations {
  conversationOf(meta: Record<string, unknown> | undefined, connectionDefault: string): string;
  nextSequence(conversationId: string): number;
}

export function newConnectionConversationId(): string {
  return `mcp-proxy-${randomUUID()}`;
}

export function createConversations(): Conversations {
  const sequences = new Map<string, number>();
  return {
    conversationOf(meta, connectionDefault) {
      if (meta) {
        for (const key of CONVERSATION_META_KEYS) {
          const v = meta[key];
          if (typeof v === 'string' && v.length > 0 && v.length <= 256) return v;
        }
      }
      return connectionDefault;
    },
    nextSequence(conversationId) {
      const next = (sequences.get(conversationId) ?? 0) + 1;
      // Re-inserted so the map's order is least recently used first; the oldest is forgotten when full.
      sequences.delete(conversationId);
      if (sequences.size >= MAX_CONVERSATIONS) sequences.delete(sequences.keys().next().value as string);
      sequences.set(conversationId, next);
      return next;
    },
  };
}
