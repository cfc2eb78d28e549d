import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium';
import { DIALECTS, forSuite, startServer } from '../helpers/server';

// The docs page as a new user meets it, in a real browser: / leads there, it shows our name and logo and reads
// /openapi.json, and Authorize with the developer key then Try it out on an operation gets a 200.
// The page does not depend on the database: one dialect is enough.
describe(`the docs page in headless Chromium, on ${DIALECTS[0]}`, () => {
  const server = forSuite(() => startServer(DIALECTS[0]));
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'devdata-docs-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    browser.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('authorizes with the developer key and tries out the action-item list: 200', async () => {
    const page = browser.pages()[0] ?? (await browser.newPage());
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));

    await page.goto(`${server.baseUrl}/`);
    await page.waitForURL(/\/docs\/?$/);
    await page.locator('.swagger-ui .info .title').getByText('DevData developer API').waitFor();
    expect(await page.title()).toBe('DevData developer API');
    // Our logo in the top bar, and the document read from /openapi.json, not /docs/json.
    const logo = page.locator('.topbar a img');
    await logo.waitFor();
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(requested).toContain('/openapi.json');
    expect(requested).not.toContain('/docs/json');
    expect(await page.locator('.topbar').textContent()).not.toContain('/docs/json');

    // Authorize: the developer key goes into the developerApiKey scheme.
    await page.locator('.scheme-container button.authorize').click();
    const scheme = page.locator('.auth-container').filter({ hasText: 'developerApiKey' });
    await scheme.locator('input').fill(server.init.developer_key);
    await scheme.locator('button.modal-btn.authorize').click();
    await scheme.locator('button.modal-btn').getByText('Logout').waitFor();
    await scheme.locator('button.btn-done').click();

    // Try it out on listActionItems (Swagger UI names the block after the tag and the operationId).
    const operation = page.locator('#operations-Action_Items-listActionItems');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    const answered = page.waitForResponse((response) =>
      new URL(response.url()).pathname.endsWith('/v1/dev/user/action-items'),
    );
    await operation.locator('button.execute').click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${server.init.developer_key}`);
    // And the page shows it.
    await operation.locator('.live-responses-table tbody .response-col_status').getByText('200').waitFor();
  });
});
