/** PostgreSQL's settings among the dev services: local on its own port, or the user's own server. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_POSTGRES_PORT, loadServicesConfig, POSTGRES_SUPERUSER } from '../../../services/config.ts';

test('by default PostgreSQL is local on port 9432 (not 5432, which a system PostgreSQL may hold)', () => {
  const c = loadServicesConfig({});
  assert.equal(c.postgres.mode, 'local');
  assert.equal(c.postgres.port, DEFAULT_POSTGRES_PORT);
  assert.equal(c.postgres.url, `postgres://${POSTGRES_SUPERUSER}@127.0.0.1:9432/postgres`);
});

test('TOOLTRAIL_POSTGRES_PORT moves the local server', () => {
  const c = loadServicesConfig({ TOOLTRAIL_POSTGRES_PORT: '26432' });
  assert.equal(c.postgres.port, 26432);
  assert.match(c.postgres.url, /:26432\//);
});

test('TOOLTRAIL_POSTGRES_URL makes it external, with the URL user', () => {
  const c = loadServicesConfig({ TOOLTRAIL_POSTGRES_URL: 'postgres://app%20user@db.internal:5432/audit' });
  assert.equal(c.postgres.mode, 'external');
  assert.equal(c.postgres.url, 'postgres://app%20user@db.internal:5432/audit');
  assert.equal(c.postgres.user, 'app user');
});

test('a bad PostgreSQL port is reported with its exact key', () => {
  assert.throws(() => loadServicesConfig({ TOOLTRAIL_POSTGRES_PORT: '99999' }), /TOOLTRAIL_POSTGRES_PORT/);
});
