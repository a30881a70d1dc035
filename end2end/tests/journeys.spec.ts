import { test, expect, type APIRequestContext, type Page } from '@playwright/test';
import { adminToken, demoURL, operator } from '../playwright.config';
import { collectErrors, signIn } from './fixtures';

// The operator's journeys against the live demo fleet: real agents probing
// real TLS listeners on 127.0.10.x, faults cut into the network paths on
// request. They share one fleet, so they run in order and each heals what
// it broke. They run once, hydrated, in dark mode: light mode is what every
// other spec and the accessibility scans of the hydrated and no-js projects
// see, and the journeys' pass in dark mode checks that every status, caption
// and control they use still reads there.
test.use({ baseURL: demoURL, colorScheme: 'dark' });
test.describe.configure({ mode: 'serial' });
test.beforeEach(({}, info) => {
  test.skip(info.project.name !== 'hydrated', 'the journeys run once, hydrated');
  test.setTimeout(150_000);
});

const auth = { authorization: `Bearer ${adminToken}` };

async function api(request: APIRequestContext, path: string) {
  const response = await request.get(path, { headers: auth });
  expect(response.ok()).toBeTruthy();
  return response.json();
}

async function fault(request: APIRequestContext, body: object) {
  const response = await request.post('/api/v1/demo/faults', { headers: auth, data: body });
  expect(response.status()).toBe(204);
}

async function statusOf(request: APIRequestContext, id: string, status: string) {
  await expect
    .poll(async () => (await api(request, `/api/v1/servers/${id}`)).status, { timeout: 90_000, intervals: [1000] })
    .toBe(status);
}

/** The user card's line of one server (not the lines that name it). */
function serverRow(page: Page, label: string) {
  return page.getByTestId('user-server').filter({ has: page.getByRole('link', { name: label, exact: true }) });
}

async function signInDemo(page: Page) {
  await signIn(page, 'demo', operator.password);
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
}

test('1. a server whose VPN service stops is unavailable and replaced on the user card, and never blocked', async ({ page, request }) => {
  const alice = await api(request, '/api/v1/users/alice');
  const german = alice.servers.find((s: { server_id: string; in_subscription: boolean }) =>
    s.server_id.startsWith('de-') && s.in_subscription);
  await statusOf(request, german.server_id, 'healthy');
  await fault(request, { fault: 'service_down', server: german.server_id, active: true });
  await statusOf(request, german.server_id, 'unavailable');

  const errors = collectErrors(page);
  await signInDemo(page);
  await page.goto('/users/alice');
  const name = (await api(request, `/api/v1/servers/${german.server_id}`)).name;
  const row = serverRow(page, `${name} (DE)`);
  await expect(row).toContainText('Server unavailable');
  await expect(row).toContainText(/Replaced by .+ \(DE\)/);

  // Do no harm: once every witness's streak (the verifier's included) is
  // sustained, the stopped server is unreachable too, and never blocked.
  await expect
    .poll(async () => (await api(request, `/api/v1/servers/${german.server_id}`)).conditions,
      { timeout: 90_000, intervals: [1000] })
    .toEqual(['unavailable', 'unreachable']);
  const stopped = await api(request, `/api/v1/servers/${german.server_id}`);
  expect(stopped.blocked_on).toEqual([]);
  await page.goto(`/servers/${german.server_id}`);
  await expect(page.getByTestId('server-status')).toContainText('Server unavailable');
  await expect(page.getByText('Address blocked')).toHaveCount(0);
  await expect(page.getByText("this server's IP address")).toHaveCount(0);
  const runs = await api(request, `/api/v1/actions/runs?server_id=${german.server_id}`);
  expect(runs.filter((r: { event: string }) => r.event === 'blocked')).toEqual([]);
  expect(errors).toEqual([]);

  await fault(request, { fault: 'service_down', server: german.server_id, active: false });
  await statusOf(request, german.server_id, 'healthy');
});

test('2. a server two witnesses cannot reach reads "2 of N" on the user card, and in Hindi and Swedish on the server cards', async ({ page, request, context }) => {
  await fault(request, { fault: 'cut', witnesses: ['de-1', 'de-3'], target: 'nl-2', active: true });
  await statusOf(request, 'nl-2', 'unreachable');
  await signInDemo(page);
  await page.goto('/users/alice');
  const row = serverRow(page, 'Amsterdam 2 (NL)');
  await expect(row).toContainText('Unreachable from your servers');
  await expect(row).toContainText(/2 of \d+ of your servers can't reach it/);

  // The seeds' own words (§5 and the glossary of #35): the verdict, its
  // count, the mesh, and the verifier jp-1 on its card; never a word the
  // seeds replaced.
  const cards = [
    {
      lang: 'hi', verdict: 'आपके सर्वरों से पहुँच योग्य नहीं', mesh: 'मेश दृश्य', verifier: 'जाँचकर्ता',
      count: /^आपके \d+ में से 2 सर्वर इस तक नहीं पहुँच पा रहे$/, replaced: /साक्षी|सत्यापक|स्थायी/,
    },
    {
      lang: 'sv', verdict: 'Onåbar från dina servrar', mesh: 'Meshvy', verifier: 'Kontrollserver',
      count: /^2 av \d+ av dina servrar når den inte$/, replaced: /[Vv]erifierar/,
    },
  ];
  for (const card of cards) {
    await context.addCookies([{ name: 'meshwatch_lang', value: card.lang, url: demoURL }]);
    await page.goto('/servers/nl-2');
    await expect(page.locator('html')).toHaveAttribute('lang', card.lang);
    await expect(page.getByTestId('server-status')).toContainText(card.verdict);
    await expect(page.getByRole('heading', { name: card.mesh, exact: true })).toBeVisible();
    await expect(page.getByTestId('mesh-summary')).toHaveText(card.count);
    expect(await page.locator('body').innerText()).not.toMatch(card.replaced);
    await page.goto('/servers/jp-1');
    await expect(page.getByRole('heading', { name: card.verifier, exact: true })).toBeVisible();
    expect(await page.locator('body').innerText()).not.toMatch(card.replaced);
  }
  await fault(request, { fault: 'cut', witnesses: ['de-1', 'de-3'], target: 'nl-2', active: false });
  await statusOf(request, 'nl-2', 'healthy');
});

test('3. a silent agent: stale badge, "No data — agent not responding", still in the subscription', async ({ page, request }) => {
  await fault(request, { fault: 'agent_silent', server: 'fi-2', active: true });
  await statusOf(request, 'fi-2', 'no_data');
  await signInDemo(page);
  await page.goto('/servers/fi-2');
  await expect(page.getByTestId('server-status')).toContainText('stale');
  await expect(page.getByText('No data — agent not responding')).toBeVisible();
  await page.goto('/users/carol');
  await expect(page.getByTestId('subscription-preview')).toContainText('127.0.10.7:4443');
  await fault(request, { fault: 'agent_silent', server: 'fi-2', active: false });
  await statusOf(request, 'fi-2', 'healthy');
});

test('4. a single-witness failure names both servers on the entry point', async ({ page, request }) => {
  await fault(request, { fault: 'cut', witnesses: ['us-2'], target: 'fi-1', active: true });
  await statusOf(request, 'fi-1', 'entry_points_unavailable');
  await signInDemo(page);
  await page.goto('/servers/fi-1');
  await page.getByText('fi-1-vless').click();
  await expect(page.getByText(/Check from Dallas 1 \(US\) to Helsinki 1 \(FI\) fails since/)).toBeVisible();
  // The real agent's metrics are charted server-side.
  await expect(page.getByRole('img', { name: /^CPU over the last 24 hours, peak \d/ })).toBeVisible();
  await expect(page.getByRole('img', { name: /^Memory over the last 24 hours, peak \d/ })).toBeVisible();
  await page.screenshot({ path: 'screenshots/server-card-pair-failure.png', fullPage: true });
  await fault(request, { fault: 'cut', witnesses: ['us-2'], target: 'fi-1', active: false });
  await statusOf(request, 'fi-1', 'healthy');
});

test('5. a verifier marked from its card, with its network, sees a block: the server leaves the subscription, the outbox gets it', async ({ page, request }) => {
  await signInDemo(page);
  // A live refresh of the card may land between typing and posting: it
  // keeps what the operator typed (LiveRegion), so one pass is enough.
  const network = page.getByLabel('Network of this verifier (optional)');
  const stop = page.getByRole('button', { name: 'Stop using this server to check blocking on the others' });
  await page.goto('/servers/us-1');
  await network.fill('MTS mobile');
  await expect(network).toHaveValue('MTS mobile');
  await page.getByRole('button', { name: 'Use this server to check blocking on the others' }).click();
  await expect(stop).toBeVisible();
  await expect(network).toHaveValue('MTS mobile');
  const view = await api(request, '/api/v1/servers/us-1');
  expect(view.verifier).toBe(true);
  expect(view.verifier_network).toBe('MTS mobile');

  await fault(request, { fault: 'cut', witnesses: ['us-1'], target: 'nl-1', how: 'reset', active: true });
  await statusOf(request, 'nl-1', 'blocked');
  const nl1 = await api(request, '/api/v1/servers/nl-1');
  expect(nl1.blocked_on).toEqual([{ verifier: 'us-1', network: 'MTS mobile', kind: 'ip' }]);
  await page.goto('/servers/nl-1');
  await expect(page.getByTestId('blocked-note')).toContainText('Address blocked on MTS mobile');
  await page.goto('/overview');
  await expect(page.getByTestId('blocked-per-network')).toContainText('MTS mobile: 1 server blocked');
  await page.goto('/users/alice');
  await expect(serverRow(page, 'Amsterdam 1 (NL)')).toContainText('Address blocked');
  await expect(serverRow(page, 'Amsterdam 1 (NL)')).toContainText('Blocked on MTS mobile');
  await expect(page.getByTestId('subscription-preview')).not.toContainText('127.0.10.4:4443');
  await page.screenshot({ path: 'screenshots/user-card-blocked.png', fullPage: true });
  // The outbox row is written with the status history, on the next tick.
  await expect
    .poll(async () => (await api(request, '/api/v1/notifications'))
      .some((n: { kind: string; server_id: string }) => n.kind === 'blocked' && n.server_id === 'nl-1'), { timeout: 15_000 })
    .toBe(true);
  await page.goto('/notifications');
  await expect(page.getByTestId('outbox').getByRole('row').filter({ hasText: 'Address blocked' })
    .filter({ has: page.getByRole('link', { name: 'nl-1', exact: true }) })).toHaveCount(1);
  await page.goto('/users/alice');

  await fault(request, { fault: 'cut', witnesses: ['us-1'], target: 'nl-1', active: false });
  await statusOf(request, 'nl-1', 'healthy');
  await page.reload();
  await expect(page.getByTestId('subscription-preview')).toContainText('127.0.10.4:4443');
  const unmark = await request.put('/api/v1/servers/us-1/verifier', { headers: auth, data: { enabled: false, network: null } });
  expect(unmark.ok()).toBeTruthy();
});

test('6. a QUIC block leaves TCP alone: only the Hysteria2 entry point is not available', async ({ page, request }) => {
  await fault(request, { fault: 'quic_blocked', witnesses: ['de-3'], target: 'nl-1', active: true });
  // Wait for de-3's own streak on the Hysteria2 entry point: an earlier
  // journey's evidence may mark nl-1 for a moment by other witnesses.
  await expect
    .poll(async () => {
      const view = await api(request, '/api/v1/servers/nl-1');
      const byId = (id: string) => view.entry_points.find((e: { id: string }) => e.id === id);
      const hy2From = (byId('nl-1-hy2')?.causes ?? []).map((c: { from: string }) => c.from);
      return hy2From.includes('de-3') && byId('nl-1-vless')?.available === true;
    }, { timeout: 90_000, intervals: [1000] })
    .toBe(true);
  await signInDemo(page);
  await page.goto('/servers/nl-1');
  await page.getByText('nl-1-hy2').click();
  await expect(page.getByText(/Check from Berlin 1 \(DE\) to Amsterdam 1 \(NL\) fails since/)).toBeVisible();
  await fault(request, { fault: 'quic_blocked', witnesses: ['de-3'], target: 'nl-1', active: false });
  await statusOf(request, 'nl-1', 'healthy');
});

test('7. a window scheduled on a server card: the blue dot, the drained subscription, then back by itself when cancelled', async ({ page, request }) => {
  const alice = await api(request, '/api/v1/users/alice');
  const german = alice.servers.find((s: { server_id: string; in_subscription: boolean }) =>
    s.server_id.startsWith('de-') && s.in_subscription);
  const id: string = german.server_id;
  await statusOf(request, id, 'healthy');
  const name = (await api(request, `/api/v1/servers/${id}`)).name;

  const errors = collectErrors(page);
  await signInDemo(page);
  await page.goto(`/servers/${id}`);
  // The form proposes the next two hours: the window holds at once.
  await page.getByLabel('Note (optional)').fill('Disk swap');
  await expect(page.getByLabel('Note (optional)')).toHaveValue('Disk swap');
  await page.getByRole('button', { name: 'Schedule maintenance' }).click();
  await expect(page.getByTestId('server-status')).toContainText('In maintenance');
  await expect(page.getByTestId('server-rotation')).toContainText('In maintenance until');
  await expect(page.getByTestId('maintenance-window')).toContainText('Disk swap');
  const view = await api(request, `/api/v1/servers/${id}`);
  expect(view.status).toBe('maintenance');
  expect(view.in_rotation).toBe(false);
  expect(view.maintenance.id).toEqual(expect.any(Number));

  // The user's subscription is drained: another German server stands in.
  await page.goto('/users/alice');
  const row = serverRow(page, `${name} (DE)`);
  await expect(row).toContainText('In maintenance');
  await expect(row).toContainText(/Replaced by .+ \(DE\)/);
  const now = await api(request, '/api/v1/users/alice');
  expect(now.servers.find((s: { server_id: string }) => s.server_id === id).in_subscription).toBe(false);
  await page.screenshot({ path: 'screenshots/user-card-maintenance.png', fullPage: true });

  // The demo's own weekly window is listed on Helsinki 2's card.
  await page.goto('/servers/fi-2');
  await expect(page.getByTestId('maintenance-window')).toContainText('Weekly kernel updates');
  await expect(page.getByTestId('maintenance-window')).toContainText('every week');

  await page.goto(`/servers/${id}`);
  await page.getByRole('button', { name: 'Cancel window' }).click();
  await expect(page.getByText('No maintenance planned.')).toBeVisible();
  await statusOf(request, id, 'healthy');
  expect(errors).toEqual([]);
});

test('8. a customer reads the public status page: every route by its public name, 30 days of bars, no server named', async ({ browser, request }) => {
  // A customer: no session, no script needed, their own language.
  // The browser's language (Chromium's Accept-Language follows the locale).
  const context = await browser.newContext({ javaScriptEnabled: false, locale: 'en-US' });
  const page = await context.newPage();
  const response = await page.goto('/status');
  expect(response?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Service status' })).toBeVisible();
  const routes = page.getByTestId('status-route');
  await expect(routes).toHaveCount(5);
  for (const name of ['Finland', 'Germany', 'Japan', 'Netherlands', 'United States']) {
    const route = routes.filter({ has: page.getByRole('heading', { level: 2, name, exact: true }) });
    await expect(route).toHaveCount(1);
    await expect(route.getByRole('list', { name: 'Last 30 days' }).getByRole('listitem')).toHaveCount(30);
  }
  // Helsinki 2's weekly window is listed under Finland, by its times alone.
  await expect(routes.filter({ hasText: 'Finland' }).getByTestId('status-maintenance')).toContainText('UTC');
  const html = await page.content();
  const fleet = await api(request, '/api/v1/servers');
  for (const server of fleet) {
    expect(html).not.toContain(server.id);
    expect(html).not.toContain(server.name);
  }
  expect(html).not.toContain('127.0.10.');
  expect(html).not.toContain('NTT home fiber');
  expect(html).not.toContain('Weekly kernel updates');
  await page.screenshot({ path: 'screenshots/status-page.png', fullPage: true });

  const json = await request.get('/status.json');
  expect(json.ok()).toBeTruthy();
  const status = await json.json();
  expect(status.routes.map((r: { name: string }) => r.name)).toEqual(['Finland', 'Germany', 'Japan', 'Netherlands', 'United States']);
  for (const route of status.routes) {
    expect(['operational', 'degraded', 'partial_outage', 'maintenance']).toContain(route.state);
    expect(route.days).toHaveLength(30);
  }

  const spanish = await browser.newContext({ javaScriptEnabled: false, locale: 'es-ES' });
  const es = await spanish.newPage();
  await es.goto('/status');
  await expect(es.getByRole('heading', { level: 1, name: 'Estado del servicio' })).toBeVisible();
  await spanish.close();
  await context.close();
});

test('9. an action configured in Settings runs on a block, once, and its run shows in the server card history', async ({ page, request }) => {
  await signInDemo(page);
  await page.goto('/settings');
  const form = page.getByTestId('add-action');
  await form.getByLabel('Name', { exact: true }).fill('Note the block');
  await form.getByLabel('Runs on').selectOption('blocked');
  await form.getByLabel('After (minutes)').fill('0');
  await form.getByLabel(/^Command/).fill('/bin/echo\nrotating the address now');
  await form.getByLabel('Your password (to confirm)').fill(operator.password);
  await form.getByRole('button', { name: 'Add action' }).click();
  const listed = page.getByTestId('action').filter({ hasText: 'Note the block' });
  await expect(listed).toContainText('/bin/echo rotating the address now');
  await expect(page.getByTestId('actions-switch')).toContainText('Actions are on.');

  // The demo's verifier (Tokyo) loses Amsterdam 2: blocked.
  await fault(request, { fault: 'cut', witnesses: ['jp-1'], target: 'nl-2', how: 'reset', active: true });
  await statusOf(request, 'nl-2', 'blocked');
  await expect
    .poll(async () => (await api(request, '/api/v1/actions/runs?server_id=nl-2'))
      .filter((r: { action: string; outcome: string }) => r.action === 'Note the block' && r.outcome === 'ok').length,
    { timeout: 30_000, intervals: [500] })
    .toBe(1);
  const runs = await api(request, '/api/v1/actions/runs?server_id=nl-2');
  const ours = runs.find((r: { action: string }) => r.action === 'Note the block');
  expect(ours.event).toBe('blocked');
  expect(ours.exit_status).toBe(0);
  expect(ours.output).toBe('rotating the address now\n');

  // A card lists a server's runs within a second of the run.
  const history = page.getByTestId('action-runs');
  await expect(async () => {
    await page.goto('/servers/nl-2');
    await expect(history.getByTestId('action-run').filter({ hasText: 'Note the block' }))
      .toContainText('rotating the address now', { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(history.getByTestId('action-run').filter({ hasText: 'Note the block' })).toContainText('Succeeded');
  await page.screenshot({ path: 'screenshots/server-card-action-run.png', fullPage: true });

  await fault(request, { fault: 'cut', witnesses: ['jp-1'], target: 'nl-2', active: false });
  await statusOf(request, 'nl-2', 'healthy');
  // Still one run for that incident.
  const after = await api(request, '/api/v1/actions/runs?server_id=nl-2');
  expect(after.filter((r: { action: string }) => r.action === 'Note the block')).toHaveLength(1);
  await page.goto('/settings');
  await page.getByTestId('action').filter({ hasText: 'Note the block' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('action').filter({ hasText: 'Note the block' })).toHaveCount(0);
});

test('10. a verifier that sees most of the fleet blocked: the blocks show, their actions wait for the operator on the Overview', async ({ page, request }) => {
  // Tokyo (the demo's verifier) loses 5 of the 9 servers it probes.
  const cut = ['de-1', 'de-2', 'nl-1', 'nl-2', 'fi-1'];
  for (const target of cut) {
    await fault(request, { fault: 'cut', witnesses: ['jp-1'], target, how: 'reset', active: true });
  }
  for (const target of cut) {
    await expect
      .poll(async () => (await api(request, `/api/v1/servers/${target}`)).conditions, { timeout: 90_000, intervals: [1000] })
      .toContain('blocked');
  }
  const errors = collectErrors(page);
  await signInDemo(page);
  await page.goto('/overview');
  const guard = page.getByTestId('mass-block');
  await expect(guard).toContainText('sees 5 of the 9 servers it probes blocked');
  await guard.getByRole('button', { name: 'Dismiss their actions' }).click();
  await expect(page.getByTestId('mass-block')).toContainText('You dismissed their actions: none runs.');
  expect(errors).toEqual([]);

  for (const target of cut) {
    await fault(request, { fault: 'cut', witnesses: ['jp-1'], target, active: false });
  }
  for (const target of cut) await statusOf(request, target, 'healthy');
});

test('11. a connected panel: added in dry run from Settings, its pending change applied with one button, "Hidden in" on the card', async ({ page, request }) => {
  const errors = collectErrors(page);
  await signInDemo(page);
  await page.goto('/settings');
  const connectors = page.getByTestId('connector');
  // The demo's own connection to its Remnawave stand-in, applying.
  const demo = connectors.filter({ hasText: 'demo-remnawave' });
  await expect(demo).toContainText('Applying');
  await demo.getByRole('button', { name: 'Remove' }).click();
  await expect(connectors.filter({ hasText: 'demo-remnawave' })).toHaveCount(0);

  await page.locator('#connector-id').fill('journey');
  await page.locator('#connector-kind').selectOption('remnawave');
  await page.locator('#connector-url').fill('http://127.0.10.250:3010');
  await page.locator('#connector-token').fill('demo-remnawave-token');
  await page.locator('#connector-password').fill(operator.password);
  await page.getByRole('button', { name: 'Connect in dry run' }).click();
  const journey = connectors.filter({ hasText: 'journey' });
  await expect(journey.getByTestId('connector-mode')).toHaveText('Dry run');

  await statusOf(request, 'de-2', 'healthy');
  await fault(request, { fault: 'service_down', server: 'de-2', active: true });
  await statusOf(request, 'de-2', 'unavailable');
  await expect
    .poll(async () => {
      await page.reload();
      // The connector's whole entry: the list of changes is not there
      // until there is one (and a locator would wait for it).
      return (await journey.textContent()) ?? '';
    }, { timeout: 30_000, intervals: [1000] })
    .toContain('turn off: Frankfurt 2 (de-2)');

  await journey.getByRole('button', { name: 'Apply its changes' }).click();
  await expect(journey.getByTestId('connector-mode')).toHaveText('Applying');
  await expect
    .poll(async () => {
      await page.reload();
      return (await journey.textContent()) ?? '';
    }, { timeout: 30_000, intervals: [1000] })
    .toContain('Hosts meshwatch turned off');
  await page.goto('/servers/de-2');
  await expect(page.getByTestId('hidden-in')).toContainText('Hidden in Remnawave (journey) since');
  expect(errors).toEqual([]);

  // Healed, the host goes back on; the demo gets its own connection back.
  await fault(request, { fault: 'service_down', server: 'de-2', active: false });
  await statusOf(request, 'de-2', 'healthy');
  await expect
    .poll(async () => (await api(request, '/api/v1/connectors/journey')).turned_off.length,
      { timeout: 30_000, intervals: [1000] })
    .toBe(0);
  expect((await request.delete('/api/v1/connectors/journey', { headers: auth })).status()).toBe(204);
  const restored = await request.put('/api/v1/connectors/demo-remnawave', {
    headers: auth,
    data: { kind: 'remnawave', url: 'http://127.0.10.250:3010', token: 'demo-remnawave-token', mode: 'apply' },
  });
  expect(restored.status()).toBe(200);
});

test('12. a verifier tells the four kinds of block apart, each with its own fix on the card, and each heals by itself', async ({ page, request }) => {
  // All from the Tokyo verifier's network ("NTT home fiber").
  const faults = [
    { fault: 'cut', witnesses: ['jp-1'], target: 'de-3', how: 'reset' },
    { fault: 'sni_filtered', witnesses: ['jp-1'], target: 'de-2' },
    { fault: 'frozen', witnesses: ['jp-1'], target: 'us-2', after_bytes: 16384 },
    { fault: 'quic_blocked', witnesses: ['jp-1'], target: 'de-1' },
  ];
  const kinds: [string, string][] = [['de-3', 'ip'], ['de-2', 'sni'], ['us-2', 'throttled'], ['de-1', 'protocol']];
  const kindsOf = async (id: string) =>
    (await api(request, `/api/v1/servers/${id}`)).blocked_on.map((b: { kind: string }) => b.kind);
  for (const f of faults) await fault(request, { ...f, active: true });
  for (const [id, kind] of kinds) {
    await expect.poll(() => kindsOf(id), { timeout: 90_000, intervals: [1000] }).toEqual([kind]);
  }
  const frozen = await api(request, '/api/v1/servers/us-2');
  // The 16 KB of the answer, with the handshake and TLS framing before them.
  expect(frozen.blocked_on[0].frozen_after_bytes).toBeGreaterThanOrEqual(16384);
  expect(frozen.blocked_on[0].frozen_after_bytes).toBeLessThan(24576);
  const protocol = await api(request, '/api/v1/servers/de-1');
  expect(protocol.in_rotation).toBe(true);

  const errors = collectErrors(page);
  await signInDemo(page);
  await page.goto('/servers/de-3');
  await expect(page.getByTestId('blocked-note')).toContainText('Address blocked on NTT home fiber');
  await page.goto('/servers/de-2');
  await expect(page.getByTestId('blocked-note'))
    .toContainText('SNI www.example.com filtered on NTT home fiber: choose another SNI or camouflage domain; a new IP will not help');
  await page.goto('/servers/us-2');
  await expect(page.getByTestId('blocked-note'))
    .toContainText(/Connections freeze after about 1\d KB on NTT home fiber: move the server to another provider/);
  await page.goto('/servers/de-1');
  await expect(page.getByTestId('protocol-note'))
    .toContainText('QUIC (UDP) blocked on NTT home fiber: its entry points are served last; nothing leaves rotation.');
  await page.screenshot({ path: 'screenshots/server-card-protocol-block.png', fullPage: true });
  expect(errors).toEqual([]);

  for (const f of faults) await fault(request, { ...f, active: false });
  for (const [id] of kinds) {
    await expect.poll(() => kindsOf(id), { timeout: 90_000, intervals: [1000] }).toEqual([]);
  }
});
