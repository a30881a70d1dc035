import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { fleetFor, hydrated, provision, signIn } from './fixtures';
import { baseURL, bigURL } from '../playwright.config';

// Every page of the panel, scanned by axe-core in each project (hydrated,
// without JavaScript, and at a phone's width in dark mode): no serious or
// critical violation of WCAG 2.1 A and AA. Every page is scanned before
// the test fails, so one run names every violation.

async function scan(page: Page, what: string) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const grave = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      where: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
    }));
  expect.soft(grave, `${what}: axe violations`).toEqual([]);
}

/**
 * A page to scan. axe runs as a script in the page, which the no-js
 * project forbids: there it gets a context of its own where scripts may
 * run but the panel's own (its JavaScript and WASM) never load, so it
 * scans the page exactly as a browser without JavaScript renders it.
 */
async function pageToScan(page: Page, info: { project: { use: { javaScriptEnabled?: boolean; colorScheme?: 'light' | 'dark' | null } } }) {
  if (info.project.use.javaScriptEnabled !== false) return page;
  const context = await page.context().browser()!.newContext({
    baseURL,
    javaScriptEnabled: true,
    colorScheme: info.project.use.colorScheme ?? 'light',
  });
  await context.route(/\.(js|wasm)(\?.*)?$/, (route) => route.abort());
  return context.newPage();
}

test('every page of the panel has no serious accessibility violation', async ({ page: given, request }, info) => {
  // Not `Frankfurt h…`: other specs find their servers by that prefix.
  const tag = `a${info.project.name.charAt(0)}`;
  const fleet = fleetFor(tag);
  await provision(request, fleet);
  const js = info.project.use.javaScriptEnabled !== false;
  const page = await pageToScan(given, info);

  await page.goto('/login');
  await scan(page, 'the sign-in page');
  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();

  const pages: [string, string][] = [
    ['/', 'the servers list'],
    [`/servers/${fleet.servers[0].id}`, 'a server card'],
    [`/servers/${fleet.servers[1].id}`, 'a verifier\'s card'],
    ['/users', 'the users list'],
    [`/users/${fleet.users[0].id}`, 'a user card'],
    ['/overview', 'the overview'],
    ['/routes', 'the routes'],
    ['/notifications', 'the outbox'],
    ['/mesh', 'the mesh'],
    ['/settings', 'the settings'],
    ['/no-such-page', 'the not-found page'],
  ];
  for (const [path, what] of pages) {
    await page.goto(path);
    if (js && path !== '/no-such-page') await hydrated(page);
    await scan(page, what);
  }
});

test('the public status page has no serious accessibility violation', async ({ page: given }, info) => {
  const page = await pageToScan(given, info);
  await page.goto(`${bigURL}/status`);
  await expect(page.getByRole('heading').first()).toBeVisible();
  await scan(page, 'the status page');
});
