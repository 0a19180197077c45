/**
 * The webhook receiver the local Alertmanager pages (services/alertmanager: `/owner` for alerts with an owner,
 * `/escalation` for the rest). Records every notification so a test can assert who was paged for what.
 * Alertmanager is shared by every test run: filter by your own tenant (`forTenant`).
 * Only one sink can listen on the port at a time; the suite runs files one after another.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { z } from 'zod';
import { services } from './services.ts';

const WebhookAlert = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()),
  startsAt: z.string(),
  endsAt: z.string(),
  fingerprint: z.string(),
});

/** Alertmanager's webhook payload (version 4). */
export const WebhookBody = z.object({
  version: z.string(),
  groupKey: z.string(),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string(),
  groupLabels: z.record(z.string(), z.string()),
  commonLabels: z.record(z.string(), z.string()),
  commonAnnotations: z.record(z.string(), z.string()),
  alerts: z.array(WebhookAlert),
});
export type WebhookBody = z.infer<typeof WebhookBody>;

export interface Notification {
  /** `/owner` or `/escalation` with the generated config. */
  path: string;
  receivedAt: number;
  body: WebhookBody;
}

export interface WebhookSink {
  readonly url: string;
  readonly notifications: readonly Notification[];
  /** Notifications about one tenant (groupLabels/commonLabels.tenant). */
  forTenant(tenant: string): Notification[];
  /** Waits until `predicate` holds over the notifications received so far; fails with `what` on timeout. */
  waitFor(predicate: (all: readonly Notification[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /**
   * Waits until Alertmanager has paged everything it held when this was called: posts a marker alert (a tenant of
   * its own) and waits for its page. A new group waits group_wait (1 s) before its first page, at least as long as
   * the group_interval (1 s) after which a changed group pages again, so a page still owed for anything posted
   * before the marker has been sent by the time the marker's is. How a test shows that nothing more was paged.
   */
  drained(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MARKER_ALERT = 'TooltrailTestDrainMarker';

export async function startWebhookSink(
  baseUrl = services.alertmanager.webhookUrl,
  alertmanagerUrl = services.alertmanager.url,
): Promise<WebhookSink> {
  const url = new URL(baseUrl);
  const notifications: Notification[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const parsed = WebhookBody.safeParse(safeJson(Buffer.concat(chunks).toString('utf8')));
      if (req.method === 'POST' && parsed.success) {
        notifications.push({ path: req.url ?? '', receivedAt: Date.now(), body: parsed.data });
        for (const w of waiters) w();
        res.writeHead(200).end();
      } else {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`the webhook sink port ${url.port} is taken: another test (or tooltrail up) is receiving pages`)
          : err,
      ),
    );
    server.listen(Number(url.port), url.hostname, () => resolve());
  });

  const sink: WebhookSink = {
    url: baseUrl,
    notifications,
    forTenant: (tenant) =>
      notifications.filter((n) => (n.body.groupLabels.tenant ?? n.body.commonLabels.tenant) === tenant),
    async drained(timeoutMs = 15_000) {
      const tenant = `drain-marker-${randomBytes(6).toString('hex')}`;
      const res = await fetch(new URL('/api/v2/alerts', alertmanagerUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // It ends by itself a minute later; its tenant is nobody's, so its resolved page disturbs no test.
        body: JSON.stringify([
          {
            labels: { alertname: MARKER_ALERT, tenant, owner: 'drain-marker' },
            annotations: { summary: 'a test waiting until Alertmanager has paged what it holds' },
            endsAt: new Date(Date.now() + 60_000).toISOString(),
          },
        ]),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`Alertmanager refused the drain marker: HTTP ${res.status}`);
      await sink.waitFor(
        () => sink.forTenant(tenant).length > 0,
        `the drain marker's page (${tenant}) from Alertmanager`,
        timeoutMs,
      );
    },
    waitFor(predicate, what, timeoutMs = 15_000) {
      if (predicate(notifications)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(notifications)) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return sink;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
