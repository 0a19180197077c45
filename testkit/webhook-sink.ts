/**
 * The webhook receiver the local Alertmanager pages (services/alertmanager: `/owner` for alerts with an owner,
 * `/escalation` for the rest). Records every notification so a test can assert who was paged for what.
 * Alertmanager is shared by every test run: filter by your own tenant (`forTenant`).
 * Only one sink can listen on the port at a time; the suite runs files one after another.
 */
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
  close(): Promise<void>;
}

export async function startWebhookSink(baseUrl = services.alertmanager.webhookUrl): Promise<WebhookSink> {
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

  return {
    url: baseUrl,
    notifications,
    forTenant: (tenant) =>
      notifications.filter((n) => (n.body.groupLabels.tenant ?? n.body.commonLabels.tenant) === tenant),
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
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
