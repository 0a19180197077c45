/**
 * A tool span's session from its ancestors in the same export request: the nearest ancestor carrying a session key
 * (`SESSION_KEYS`: the `invoke_agent` span's `gen_ai.conversation.id`, OpenInference's `session.id`, OpenLLMetry's
 * association properties...). Ancestors exported in another request are not seen: the trace id stands for the session
 * then, as for any span without one (docs/emitters/README.md says how to put the session on the tool span).
 */
import { SESSION_KEYS } from '../../contract/index.ts';
import { bytesToHex, type ExportTraceServiceRequest, type KeyValue } from '../../platform/otlp/index.ts';

interface Node {
  parent: string;
  session: string | undefined;
}

/** How far up a chain of parents is followed (a cycle in bad data must end). */
const MAX_DEPTH = 64;

export class AncestorSessions {
  private nodes: Map<string, Node> | undefined;

  constructor(private readonly request: ExportTraceServiceRequest) {}

  /** The session of the nearest ancestor of the span whose parent is `parentHex`, if one is in the request. */
  find(parentHex: string): string | undefined {
    this.nodes ??= index(this.request);
    const nodes = this.nodes;
    let id = parentHex;
    for (let depth = 0; depth < MAX_DEPTH && id !== ''; depth++) {
      const node = nodes.get(id);
      if (node === undefined) return undefined;
      if (node.session !== undefined) return node.session;
      id = node.parent;
    }
    return undefined;
  }
}

/** The session a span's own attributes name, in `SESSION_KEYS` order. */
export function ownSession(attrs: readonly KeyValue[] | null | undefined): { key: string; value: string } | undefined {
  if (!attrs) return undefined;
  let best: { key: string; value: string } | undefined;
  let rank = SESSION_KEYS.length;
  for (const kv of attrs) {
    const r = kv.key == null ? -1 : SESSION_KEYS.indexOf(kv.key);
    const s = kv.value?.stringValue;
    if (r >= 0 && r < rank && s) {
      best = { key: kv.key as string, value: s };
      rank = r;
    }
  }
  return best;
}

function index(request: ExportTraceServiceRequest): Map<string, Node> {
  const nodes = new Map<string, Node>();
  for (const rs of request.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        const id = bytesToHex(span.spanId);
        if (id !== '')
          nodes.set(id, { parent: bytesToHex(span.parentSpanId), session: ownSession(span.attributes)?.value });
      }
    }
  }
  return nodes;
}
