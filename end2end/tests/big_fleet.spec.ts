import { test, expect, type APIRequestContext } from '@playwright/test';
import { adminToken, bigURL } from '../playwright.config';
import { collectErrors, hydrated, signIn } from './fixtures';
import { randomUUID } from 'node:crypto';

// Every page at a big fleet: 1000 servers (200 per country and route),
// 10 000 users, every server reporting once with a result for every other
// server. Each page is checked complete and usable as an operator uses it,
// with and without JavaScript; no timing is asserted (the benches measure).
test.use({ baseURL: bigURL });
test.describe.configure({ mode: 'serial' });

const SERVERS = 1000;
const USERS = 10_000;
const COUNTRIES = ['DE', 'NL', 'FI', 'US', 'JP'];
const auth = { authorization: `Bearer ${adminToken}` };
const token = (i: number) => `big-fleet-agent-token-${String(i).padStart(6, '0')}`;
/** Every 97th server's listener is down; 1 pair in 40 fails. */
const listenerDown = (i: number) => i % 97 === 0;
const pairFails = (w: number, t: number) => (w * 31 + t * 17) % 40 === 0;

/** When this worker last had every server report (0: never). */
let reportedAt = 0;

async function provisionBigFleet(request: APIRequestContext) {
  const known = await request.get(`/api/v1/servers/s${SERVERS - 1}`, { headers: auth });
  if (!known.ok()) await putBigFleet(request);
  // Silence is "No data" after 3 report intervals: report again before
  // the fleet goes quiet (each project runs in a worker of its own).
  if (Date.now() - reportedAt > 60_000) {
    await reportOnce(request);
    reportedAt = Date.now();
  }
}

async function putBigFleet(request: APIRequestContext) {
  const servers = Array.from({ length: SERVERS }, (_, i) => {
    const country = COUNTRIES[i % 5];
    return {
      id: `s${i}`, name: `Server ${i}`, country, routes: [country.toLowerCase()], agent_token: token(i),
      entry_points: [{ id: `s${i}-ep`, protocol: 'vless', host: `127.0.${40 + Math.floor(i / 250)}.${1 + (i % 250)}`, port: 443 }],
    };
  });
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: `u${i}`, name: `User ${i}`, routes: [COUNTRIES[i % 5].toLowerCase(), COUNTRIES[(i + 2) % 5].toLowerCase()],
  }));
  const routes = COUNTRIES.map((c) => ({ id: c.toLowerCase(), name: `Route ${c}`, servers_per_user: 2 }));
  const put = await request.put('/api/v1/fleet', { headers: auth, data: { routes, servers, users }, timeout: 120_000 });
  expect(put.status()).toBe(200);
}

/** Every server reports once, with a result for every other server. */
async function reportOnce(request: APIRequestContext) {
  const report = (w: number) => {
    const at = new Date().toISOString();
    const probes = [];
    for (let t = 0; t < SERVERS; t++) {
      if (t === w) continue;
      const ok = !pairFails(w, t);
      probes.push({ entry_point_id: `s${t}-ep`, at, ok, error: ok ? null : 'timeout' });
    }
    return {
      report_id: randomUUID(), agent_version: 'e2e', sent_at: at,
      self_check: { listener_ok: !listenerDown(w), service_ok: true }, metrics: { cpu_pct: 10 }, probes,
    };
  };
  for (let first = 0; first < SERVERS; first += 10) {
    await Promise.all(Array.from({ length: 10 }, async (_, k) => {
      const w = first + k;
      const sent = await request.post('/api/agent/v1/report', {
        headers: { authorization: `Bearer ${token(w)}` }, data: report(w), timeout: 60_000,
      });
      expect(sent.status()).toBe(202);
    }));
  }
  // The engine evaluates once a second: the listeners that are down show.
  await expect.poll(async () => (await (await request.get('/api/v1/servers/s97', { headers: auth })).json()).status,
    { timeout: 30_000 }).toBe('unavailable');
}

test.beforeEach(async ({ request }) => {
  test.setTimeout(180_000);
  await provisionBigFleet(request);
});

test('the servers list pages 1000 servers and filters across every page', async ({ page }, info) => {
  const js = info.project.use.javaScriptEnabled !== false;
  const errors = collectErrors(page);
  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
  if (js) await hydrated(page);
  const rows = page.locator('tbody tr[data-filter-text]');
  await expect(rows).toHaveCount(100);
  await expect(page.getByText('Showing 1,000 of 1,000 servers')).toBeVisible();
  await expect(page.getByText('Page 1 of 10')).toBeVisible();
  await expect(page.getByRole('row', { name: /Server 0\b/ })).toContainText('Server unavailable');

  await page.getByRole('link', { name: 'Next' }).click();
  await expect(page.getByText('Page 2 of 10')).toBeVisible();
  await expect(rows).toHaveCount(100);

  // A server on the last page, found from the first.
  await page.goto('/');
  const filter = page.getByLabel('Filter servers');
  if (js) await hydrated(page);
  await filter.fill('Server 999');
  if (!js) await filter.press('Enter');
  await expect(page.getByRole('row', { name: /Server 999\b/ })).toBeVisible();
  await expect(rows.filter({ visible: true })).toHaveCount(1);
  await expect(page.getByText('Showing 1 of 1,000 servers')).toBeVisible();

  // A facet keeps its filter across pages.
  await page.goto('/');
  if (js) await hydrated(page);
  await page.getByLabel('Country', { exact: true }).selectOption('JP');
  if (!js) await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('Showing 200 of 1,000 servers')).toBeVisible();
  await expect(page.getByText('Page 1 of 2')).toBeVisible();
  await page.getByRole('link', { name: 'Next' }).click();
  await expect(page).toHaveURL(/country=JP/);
  await expect(rows).toHaveCount(100);
  for (const country of await rows.locator('td:nth-child(3)').allInnerTexts()) expect(country.trim()).toBe('JP');
  expect(errors).toEqual([]);
});

test('the overview counts all 1000 servers', async ({ page }) => {
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto('/overview');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  const counts = page.getByTestId('status-count');
  await expect(counts).toHaveCount(7);
  const total = (await counts.allInnerTexts())
    .map((text) => Number((text.match(/[\d,]+/) ?? ['0'])[0].replace(/,/g, '')))
    .reduce((a, b) => a + b, 0);
  expect(total).toBe(SERVERS);
  expect(errors).toEqual([]);
});

test('each big route sums up its rotation and links to its servers', async ({ page }) => {
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto('/routes');
  const summaries = page.getByTestId('route-summary');
  await expect(summaries).toHaveCount(5);
  await expect(summaries.first()).toContainText(/of 200 servers in rotation/);
  const de = page.getByRole('region', { name: 'Route DE' });
  await de.getByRole('link', { name: 'All servers of this route' }).click();
  await expect(page).toHaveURL(/route=de/);
  await expect(page.getByText('Showing 200 of 1,000 servers')).toBeVisible();
  expect(errors).toEqual([]);
});

test('the users list pages 10 000 users and finds one', async ({ page }, info) => {
  const js = info.project.use.javaScriptEnabled !== false;
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto('/users');
  await expect(page.getByText('Showing 1–50 of 10,000 users')).toBeVisible();
  await expect(page.getByText('Page 1 of 200')).toBeVisible();
  if (js) await hydrated(page);
  await page.getByLabel('Search users').fill('u9999');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('row', { name: /User 9999/ })).toBeVisible();
  await page.getByRole('link', { name: 'User 9999' }).click();
  await expect(page.getByRole('heading', { name: 'User 9999' })).toBeVisible();
  expect(errors).toEqual([]);
});

test('the outbox and its test email work at a big fleet', async ({ page }) => {
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto('/notifications');
  await page.getByRole('button', { name: 'Send test email' }).click();
  await expect(page.getByRole('status')).toHaveText('Test message queued for 1 target.');
  await expect(page.getByTestId('outbox').getByRole('row').filter({ hasText: 'meshwatch: test message' }).first()).toBeVisible();
  expect(errors).toEqual([]);
});

test('the mesh of 1000 servers lists witness sets, with a search, instead of a picture', async ({ page }) => {
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto('/mesh');
  // Beyond the witness set threshold (64): no 1000 × 1000 picture.
  const sets = page.getByTestId('witness-sets');
  await expect(sets).toBeVisible();
  await expect(page.getByTestId('mesh-picture')).toHaveCount(0);
  await expect(page.getByTestId('mesh-matrix')).toHaveCount(0);
  await expect(page.getByTestId('witness-set')).toHaveCount(50);
  await expect(page.getByTestId('sets-shown')).toHaveText('Showing 50 of 1,000 servers');

  // One server found by its id: its set of 12, from every country.
  await page.getByLabel('Filter servers').fill('s123');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/q=s123/);
  const row = page.getByTestId('witness-set');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-server', 's123');
  const witnesses = row.getByTestId('set-witness').and(page.locator('[data-confirming="false"]'));
  await expect(witnesses).toHaveCount(12);
  const countries = new Set((await witnesses.allInnerTexts()).map((t) => t.match(/\((\w\w)\)/)?.[1]));
  expect(countries.size).toBe(5);
  // A witness links to its card.
  await witnesses.first().getByRole('link').click();
  await expect(page.getByTestId('server-status')).toBeVisible();
  expect(errors).toEqual([]);
});

test('a server card and a user card at a big fleet', async ({ page }) => {
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto('/servers/s97');
  await expect(page.getByTestId('server-status')).toContainText('Server unavailable');
  await page.goto('/users/u9999');
  await expect(page.getByRole('heading', { name: 'User 9999' })).toBeVisible();
  await expect(page.getByTestId('subscription-preview')).toBeVisible();
  expect(errors).toEqual([]);
});

test('settings and the public status page at a big fleet', async ({ page, browser }) => {
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto('/settings');
  await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Verdict parameters' })).toBeVisible();
  // The status page is the customers', signed out: one line per route.
  const customer = await browser.newPage({ baseURL: bigURL });
  await customer.goto('/status');
  await expect(customer.getByTestId('status-route')).toHaveCount(COUNTRIES.length);
  await expect(customer.getByRole('heading', { name: 'Route JP' })).toBeVisible();
  await customer.close();
  expect(errors).toEqual([]);
});
