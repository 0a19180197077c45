/**
 * What the tool spans of other emitters in one export request share: their ancestors' sessions and the pages of
 * their cursor traversals, each worked out once, on first need (a request without such spans pays nothing).
 */
import type { ExportTraceServiceRequest } from '../../platform/otlp/index.ts';
import type { EmitterOptions } from './normalize.ts';
import { AncestorSessions } from './session.ts';
import { linkPages, type PageLink } from './traversals.ts';

export class EmitterRequest {
  readonly sessions: AncestorSessions;
  private pages: Map<string, PageLink> | undefined;

  constructor(
    private readonly request: ExportTraceServiceRequest,
    readonly options: EmitterOptions,
  ) {
    this.sessions = new AncestorSessions(request);
  }

  /** The page link of the read whose span id is `spanIdHex`, when it is a page of a traversal. */
  pageOf(spanIdHex: string): PageLink | undefined {
    this.pages ??= linkPages(this.request, this.sessions, this.options.policy);
    return this.pages.get(spanIdHex);
  }
}
