/**
 * ClickHouse over HTTPS with a password user, configured the way users do (TOOLTRAIL_CLICKHOUSE_URL/_USER/
 * _PASSWORD/_CA_FILE), against a private ClickHouse (the chdb engine) whose users file holds that user. The engine
 * (clickhouse-local) refuses an HTTPS listener, so TLS is terminated in front of it (testkit/tls.ts); the client's
 * handshake, CA check and credentials are real. Secrets never appear in what is printed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import { loadConnectionSettings } from '../../../platform/connections.ts';
import { makeCa, makeCertificate, startTlsTerminator, type TestCa, type TlsTerminator } from '../../../testkit/tls.ts';
import { type OwnClickHouse, startOwnClickHouse } from '../dashboards/own-clickhouse.ts';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../../bin/tooltrail.js');
const USER = 'tt_writer';
const PASSWORD = 'Ch-Pw-5e1d7a90';

describe('ClickHouse over HTTPS with a password user', () => {
  let dir: string;
  let ca: TestCa;
  let otherCa: TestCa;
  let ch: OwnClickHouse;
  let tls: TlsTerminator;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tooltrail-ch-https-'));
    ca = makeCa(join(dir, 'ca'));
    otherCa = makeCa(join(dir, 'other'), 'other');
    const server = makeCertificate(ca, 'clickhouse');
    const usersFile = join(dir, 'tt-writer.xml');
    const hash = createHash('sha256').update(PASSWORD).digest('hex');
    writeFileSync(
      usersFile,
      `<clickhouse><users><${USER}><password_sha256_hex>${hash}</password_sha256_hex><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota><access_management>1</access_management></${USER}></users></clickhouse>\n`,
    );
    ch = await startOwnClickHouse([usersFile], {});
    tls = await startTlsTerminator(server, Number(new URL(ch.url).port));
    env = {
      TOOLTRAIL_CLICKHOUSE_URL: `https://127.0.0.1:${tls.port}`,
      TOOLTRAIL_CLICKHOUSE_USER: USER,
      TOOLTRAIL_CLICKHOUSE_PASSWORD: PASSWORD,
      TOOLTRAIL_CLICKHOUSE_CA_FILE: ca.caFile,
    };
  });

  after(async () => {
    await tls?.close();
    await ch?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('connects over https:// as the configured user, trusting the configured CA', async () => {
    const settings = loadConnectionSettings(env).clickhouse;
    const client = createClickHouse(settings);
    try {
      const rs = await client.query({ query: 'SELECT currentUser() AS u', format: 'JSONEachRow' });
      assert.deepEqual(await rs.json(), [{ u: USER }]);
    } finally {
      await client.close();
    }
  });

  it('`tooltrail migrate` creates the schema over HTTPS from the environment, printing no password', async () => {
    // Not spawnSync: the TLS terminator lives in this process and must keep serving.
    const r = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [CLI, 'migrate'],
        { env: { ...process.env, ...env, TOOLTRAIL_CLICKHOUSE_DATABASE: 'tt_https_migrated' } },
        (err, stdout, stderr) => resolve({ code: err ? (err.code as number) : 0, output: `${stdout}${stderr}` }),
      );
    });
    assert.equal(r.code, 0, r.output);
    assert.ok(!r.output.includes(PASSWORD));
  });

  it('a wrong password is refused with AUTHENTICATION_FAILED, and the error does not hold the password', async () => {
    const wrong = 'Wrong-Pw-33b0c1';
    const client = createClickHouse(
      loadConnectionSettings({ ...env, TOOLTRAIL_CLICKHOUSE_PASSWORD: wrong }).clickhouse,
    );
    try {
      await assert.rejects(client.query({ query: 'SELECT 1' }), (err: Error) => {
        assert.match(err.message, /Authentication failed/);
        assert.ok(!inspect(err).includes(wrong), 'the password is not in the error');
        return true;
      });
    } finally {
      await client.close();
    }
  });

  it('a server certificate from a CA the client does not trust is refused', async () => {
    const client = createClickHouse(
      loadConnectionSettings({ ...env, TOOLTRAIL_CLICKHOUSE_CA_FILE: otherCa.caFile }).clickhouse,
    );
    try {
      await assert.rejects(client.query({ query: 'SELECT 1' }), /certificate/);
    } finally {
      await client.close();
    }
  });

  it('the connection settings print no password: JSON, inspect and String', () => {
    const settings = loadConnectionSettings(env);
    for (const printed of [
      JSON.stringify(settings),
      inspect(settings, { depth: 10 }),
      String(settings.clickhouse.password),
    ]) {
      assert.ok(!printed.includes(PASSWORD), printed);
    }
  });
});
