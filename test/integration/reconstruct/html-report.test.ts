import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';
import { reconstructSession } from '../../../reconstruct/reconstruct.ts';
import { renderReconstructionHtml } from '../../../reconstruct/render-html.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, withoutSpan } from './scenario.ts';

const CHROMIUM = process.env.TOOLTRAIL_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = resolve('test-artifacts/reconstruct');

describe('HTML reconstruction report in headless Chromium', () => {
  let db: TestDatabase;
  let profile: string;
  let browser: BrowserContext | undefined;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium)`);
    }
    db = await freshDatabase('tt_html');
    profile = mkdtempSync(join(tmpdir(), 'tooltrail-chromium-'));
  });
  after(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await db?.drop();
  });

  it('renders the mutation, its reasons and the gap where a reader sees them', async () => {
    const s = runScenario(uniqueName('sess'));
    await ingestSpans(db, withoutSpan(s, 3), 'acme');
    const r = await reconstructSession(db.ch, db.schema, { session: s.session, tenant: 'acme' });
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, 'report.html');
    writeFileSync(file, renderReconstructionHtml(r));

    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1400, height: 1000 },
    });
    const page = await browser.newPage();
    const external: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith('file:')) external.push(req.url());
    });
    await page.goto(pathToFileURL(file).href);

    const mutation = page.locator('tr[data-kind="call"][data-effect="mutation"]', {
      hasText: 'delete_service_accounts',
    });
    assert.equal(await mutation.isVisible(), true, 'the mutation row is visible');
    const details = page.locator('tr.call.mutation-details').first();
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a reader sees
    const detailText = await details.innerText();
    assert.match(detailText, /ACTED_ON_ABSENCE_WITH_INCOMPLETE_EVIDENCE/);
    assert.match(detailText, /relied on call_id call-1 → #1 list_service_accounts: incomplete/);
    assert.match(detailText, /MORE_PAGES_AVAILABLE/);
    assert.match(detailText, /call-404\s*: not stored/);

    const gap = page.locator('tr[data-kind="gap"][data-gap="missing_sequence"]');
    assert.equal(await gap.isVisible(), true, 'the gap row is visible');
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a reader sees
    assert.match(await gap.innerText(), /sequence number 3 never arrived/);
    const box = await gap.boundingBox();
    assert.ok(box && box.height > 10 && box.width > 500, `gap row has a real size: ${JSON.stringify(box)}`);
    // The gap is drawn apart from the calls (a dashed red border), not as an ordinary row.
    const border = await gap
      .locator('td')
      .first()
      .evaluate((td) => getComputedStyle(td).borderTopStyle);
    assert.equal(border, 'dashed');

    assert.equal(await page.locator('[data-testid="reconstruction-incomplete"]').isVisible(), true);
    assert.deepEqual(external, [], 'the report is self-contained');

    const shot = join(ARTIFACTS, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok(statSync(shot).size > 10_000, 'screenshot written');
  });
});
