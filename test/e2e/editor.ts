// The real n8n editor in headless Chromium: Debian's chromium driven through playwright-core (no browser
// download). Each step leaves a screenshot in SCREENSHOTS, so a failing run shows what the editor looked like.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, selectors, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { REPO } from './harness.ts';

export const SCREENSHOTS = join(REPO, '.e2e', 'editor-screenshots');

export interface Editor {
  page: Page;
  /** Saves a screenshot of the page as SCREENSHOTS/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts Chromium with a fresh profile in `workDir` and signs in to n8n at `baseUrl`. */
export async function openEditor(
  baseUrl: string,
  workDir: string,
  owner: { email: string; password: string },
): Promise<Editor> {
  rmSync(SCREENSHOTS, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  // n8n marks its elements with data-test-id.
  selectors.setTestIdAttribute('data-test-id');
  const context: BrowserContext = await chromium.launchPersistentContext(
    mkdtempSync(join(workDir, 'chromium-profile-')),
    {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
    },
  );
  context.setDefaultTimeout(30_000);
  const page = context.pages()[0] ?? (await context.newPage());
  // Leaving a workflow with unsaved changes asks first (beforeunload); the tests leave without saving.
  page.on('dialog', (dialog) => void dialog.accept());
  const editor: Editor = {
    page,
    async screenshot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    close: () => context.close(),
  };
  try {
    await page.goto(`${baseUrl}/signin`);
    await page.locator('input[name=emailOrLdapLoginId]').fill(owner.email);
    await page.locator('input[name=password]').fill(owner.password);
    await page.getByTestId('form-submit-button').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
  } catch (error) {
    await editor.screenshot('sign-in-failed').catch(() => undefined);
    await editor.close();
    throw error;
  }
  return editor;
}

/** The entries the nodes panel lists for a search, as {name, description}, once `expected` is among them. */
export async function searchNodesPanel(page: Page, query: string, expected: string) {
  await page.getByTestId('node-creator-search-bar').fill(query);
  await page.getByTestId('node-creator-item-name').getByText(expected, { exact: true }).waitFor();
  // Nodes with several actions and nodes without are different items; both have a name and a description.
  const items = page
    .getByTestId('item-iterator-item')
    .filter({ has: page.getByTestId('node-creator-item-description') });
  await items.first().waitFor();
  return Promise.all(
    (await items.all()).map(async (item) => ({
      name: (await item.getByTestId('node-creator-item-name').innerText()).trim(),
      description: (await item.getByTestId('node-creator-item-description').innerText()).trim(),
    })),
  );
}
