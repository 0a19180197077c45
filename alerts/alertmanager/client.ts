/** The one place that talks to Alertmanager: POST /api/v2/alerts. */
import type { PostableAlert } from './payload.ts';

export class AlertmanagerError extends Error {
  override name = 'AlertmanagerError';
}

export interface AlertSink {
  post(alerts: readonly PostableAlert[]): Promise<void>;
}

export function alertmanagerClient(baseUrl: string, timeoutMs: number): AlertSink {
  const url = new URL('/api/v2/alerts', baseUrl);
  return {
    async post(alerts) {
      if (alerts.length === 0) return;
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(alerts),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        throw new AlertmanagerError(`Alertmanager at ${baseUrl} is unreachable: ${(err as Error).message}`);
      }
      if (!res.ok) {
        const body = (await res.text()).slice(0, 500);
        throw new AlertmanagerError(
          `Alertmanager at ${baseUrl} refused ${alerts.length} alert(s): HTTP ${res.status} ${body}`,
        );
      }
      await res.arrayBuffer().catch(() => undefined);
    },
  };
}
