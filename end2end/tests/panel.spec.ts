import { test, expect } from '@playwright/test';
import { collectErrors, fleetFor, hydrated, provision, signIn, tagFor } from './fixtures';
import { adminToken, baseURL, operator } from '../playwright.config';
import { randomUUID } from 'node:crypto';

test('an operator signs in, sees the provisioned fleet, filters it and signs out', async ({ page, request }, info) => {
  const tag = tagFor(info);
  await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  const js = info.project.use.javaScriptEnabled !== false;

  await page.goto('/');
  await expect(page).toHaveURL(/\/login$/);
  await signIn(page);

  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
  await expect(page.getByText('Signed in as')).toContainText('e2e');
  const frankfurt = page.getByRole('row', { name: new RegExp(`Frankfurt ${tag}`) });
  const amsterdam = page.getByRole('row', { name: new RegExp(`Amsterdam ${tag}`) });
  await expect(frankfurt).toBeVisible();
  await expect(amsterdam).toBeVisible();
  await expect(amsterdam).toContainText('Verifier');
  await expect(frankfurt).toContainText('127.0.20.1:4443');
  await expect(frankfurt).toContainText('No data from server', { useInnerText: true });

  const filter = page.getByLabel('Filter servers');
  if (js) {
    await hydrated(page);
    // Live filtering exists only once the WASM runs: no reload, no request.
    await filter.fill(`amsterdam ${tag}`);
  } else {
    await filter.fill(`amsterdam ${tag}`);
    await filter.press('Enter');
    await expect(page).toHaveURL(/q=amsterdam/);
  }
  await expect(amsterdam).toBeVisible();
  await expect(frankfurt).toBeHidden();
  await expect(page.getByText(/Showing 1 of \d+ servers/)).toBeVisible();

  await page.getByRole('link', { name: 'Users' }).click();
  await expect(page.getByRole('heading', { name: 'Users' })).toBeVisible();
  await expect(page.getByRole('row', { name: new RegExp(`Alice ${tag}`) })).toBeVisible();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/users');
  await expect(page).toHaveURL(/\/login$/);

  expect(errors).toEqual([]);
});

test('a wrong password is refused with a message', async ({ page }, info) => {
  await signIn(page, `nobody-${info.project.name}`, 'not the password');
  await expect(page).toHaveURL(/\/login\?error=invalid$/);
  await expect(page.getByRole('alert')).toHaveText('Wrong username or password.');
});

test('a server card shows a silent agent and toggles the verifier', async ({ page, request }, info) => {
  const tag = tagFor(info, 'c');
  await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  const js = info.project.use.javaScriptEnabled !== false;
  await signIn(page);

  // Found through the filter: the list pages a fleet the other tests grew.
  await page.goto(`/?q=${encodeURIComponent(`Frankfurt ${tag}`)}`);
  await page.getByRole('link', { name: `Frankfurt ${tag}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Frankfurt ${tag}` })).toBeVisible();
  await expect(page.getByTestId('server-status')).toContainText('No data from server');
  await expect(page.getByText('No data — agent not responding')).toBeVisible();
  await expect(page.getByTestId('mesh-summary')).toHaveText('No fresh reliable witness probes this server.');

  await page.getByText(`fra-${tag}-vless`).click();
  await expect(page.getByText('No witness reports a sustained failure towards it.')).toBeVisible();

  if (js) await hydrated(page);
  await page.getByRole('button', { name: 'Use this server to check blocking on the others' }).click();
  await expect(page.getByRole('button', { name: 'Stop using this server to check blocking on the others' })).toBeVisible();
  await page.screenshot({ path: `screenshots/server-card-${info.project.name}.png`, fullPage: true });
  const view = await request.get(`/api/v1/servers/fra-${tag}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  expect((await view.json()).verifier).toBe(true);

  expect(errors).toEqual([]);
});

test('a user card shows the servers, the subscription link with its QR code and the preview', async ({ page, request }, info) => {
  const tag = tagFor(info, 'u');
  const tokens = await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  await signIn(page);

  await page.getByRole('link', { name: 'Users' }).click();
  await page.getByRole('link', { name: `Alice ${tag}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Alice ${tag}` })).toBeVisible();
  const servers = page.getByTestId('user-server');
  await expect(servers).toHaveCount(2);
  // No agent reports in this fleet: silence is shown, and nothing is removed.
  await expect(servers.first()).toContainText('No data from server');
  await expect(page.getByLabel('Subscription link', { exact: true })).toHaveValue(new RegExp(`/sub/${tokens.sub_tokens[`alice-${tag}`]}$`));
  await expect(page.getByRole('img', { name: 'QR code of the subscription link' })).toBeVisible();
  const preview = page.getByTestId('subscription-preview');
  await expect(preview).toContainText('127.0.20.1:4443');
  await expect(preview).toContainText('127.0.20.2:4443');
  await page.screenshot({ path: `screenshots/user-card-${info.project.name}.png`, fullPage: true });
  // Hydrated, the copy button copies the link. Its island takes the text
  // and its labels from the page (no props).
  if (info.project.use.javaScriptEnabled !== false) {
    await hydrated(page);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await expect(page.getByRole('button', { name: 'Copied', exact: true })).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    await expect(page.getByLabel('Subscription link', { exact: true })).toHaveValue(copied);
    expect(copied).toMatch(new RegExp(`^https?://.+/sub/${tokens.sub_tokens[`alice-${tag}`]}$`));
  }

  expect(errors).toEqual([]);
});

test('a status change appears on an open page without a reload', async ({ page, request }, info) => {
  test.skip(info.project.use.javaScriptEnabled === false, 'live updates need JavaScript');
  const tag = tagFor(info, 'lv');
  const tokens = await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto(`/servers/fra-${tag}`);
  await hydrated(page);
  await expect(page.getByTestId('live')).toHaveAttribute('data-live', 'on');
  // Both words are on the page; only the one that holds shows.
  await expect(page.getByTestId('live')).toHaveText('Live', { useInnerText: true });
  await expect(page.getByTestId('server-status')).toContainText('No data from server');
  await page.evaluate(() => { (window as unknown as { stillHere: boolean }).stillHere = true; });
  // What the operator is typing in the card's forms outlives the refresh.
  const network = page.getByLabel('Network of this verifier (optional)');
  await network.fill('Beeline home');
  const note = page.getByTestId('maintenance-form').getByLabel('Note (optional)');
  await note.fill('Disk swap');
  const weekly = page.getByTestId('maintenance-form').getByLabel('Repeat every week');
  await weekly.check();

  const report = await request.post('/api/agent/v1/report', {
    headers: { authorization: `Bearer ${tokens.agent_tokens[`fra-${tag}`]}` },
    data: {
      report_id: randomUUID(), agent_version: 'e2e', sent_at: new Date().toISOString(),
      self_check: { listener_ok: false, service_ok: true, detail: 'listener down' }, metrics: {}, probes: [],
    },
  });
  expect(report.status()).toBe(202);
  await expect(page.getByTestId('server-status')).toContainText('Server unavailable');
  expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
  await expect(network).toHaveValue('Beeline home');
  await expect(note).toHaveValue('Disk swap');
  await expect(weekly).toBeChecked();

  expect(errors).toEqual([]);
});

test('switching to Japanese and Spanish shows the product wording exactly', async ({ page, request }, info) => {
  const tag = tagFor(info, 'l');
  const tokens = await provision(request, fleetFor(tag));
  const down = await request.post('/api/agent/v1/report', {
    headers: { authorization: `Bearer ${tokens.agent_tokens[`fra-${tag}`]}` },
    data: {
      report_id: randomUUID(), agent_version: 'e2e', sent_at: new Date().toISOString(),
      self_check: { listener_ok: true, service_ok: false, detail: 'xray stopped' }, metrics: {}, probes: [],
    },
  });
  expect(down.status()).toBe(202);
  const errors = collectErrors(page);
  await signIn(page);
  await page.goto(`/users/alice-${tag}`);
  const frankfurt = page.getByTestId('user-server').filter({ hasText: `Frankfurt ${tag}` });
  await expect(frankfurt).toContainText('Server unavailable');

  // The switcher speaks the page's current language: its label and button
  // are found by their names in the language the page is in.
  for (const [code, label, button, unavailable, noData, settings] of [
    ['ja', 'Language', 'Change language', 'サーバーが利用できません', 'サーバーからのデータがありません', '設定'],
    ['es', '言語', '言語を変更', 'Servidor no disponible', 'Sin datos del servidor', 'Configuración'],
  ]) {
    await page.getByLabel(label, { exact: true }).selectOption(code);
    await page.getByRole('button', { name: button }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', code);
    await expect(frankfurt).toContainText(unavailable);
    await expect(page.getByTestId('user-server').filter({ hasText: `Amsterdam ${tag}` })).toContainText(noData);
    // The rest of the panel is translated too.
    await expect(page.getByRole('link', { name: settings, exact: true })).toBeVisible();
  }
  expect(errors).toEqual([]);
});

test('counts, lists and decimals read as each language writes them', async ({ page, request, context }, info) => {
  const tag = tagFor(info, 'p');
  await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  const js = info.project.use.javaScriptEnabled !== false;
  await signIn(page);
  const speak = (lang: string) =>
    context.addCookies([{ name: 'meshwatch_lang', value: lang, url: baseURL }]);

  // Swedish counts in whole words: "servrar", never "server(rar)"; the
  // live filter (WASM) recounts in the same form.
  await speak('sv');
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', 'sv');
  const filter = page.getByLabel('Filtrera servrar');
  if (js) await hydrated(page);
  await filter.fill(`amsterdam ${tag}`);
  if (!js) await filter.press('Enter');
  await expect(page.getByText(/^Visar 1 av [\d\u00a0]+ servrar$/)).toBeVisible();
  expect(await page.locator('body').innerText()).not.toMatch(/\w\((s|es|ar|rar)\)/);

  // The Portuguese is Brazil's, and says so.
  await speak('pt');
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('lang', 'pt-BR');
  await expect(page.getByRole('option', { name: 'Português (Brasil)' })).toBeAttached();

  // Spanish shows the fraction with a comma, and reads back what it shows.
  await speak('es');
  await page.goto('/settings');
  const fraction = page.getByLabel('Fracción de no fiabilidad');
  await expect(fraction).toHaveValue(/^[01](,\d+)?$/);
  await fraction.fill('0,5');
  await page.getByRole('button', { name: 'Guardar parámetros' }).click();
  await expect(page.getByText('Guardado. El motor usa los nuevos parámetros a partir de ahora.')).toBeVisible();
  await expect(page.getByLabel('Fracción de no fiabilidad')).toHaveValue('0,5');
  await speak('en');
  expect(errors).toEqual([]);
});

test('the mesh page shows the matrix with sticky headers', async ({ page, request }, info) => {
  const tag = tagFor(info, 'm');
  await provision(request, fleetFor(tag));
  // Every test's fleet adds servers to this shared panel: the full mesh
  // is kept here on purpose, whatever the earlier tests provisioned (the
  // sets view beyond the threshold has its own test, on the big fleet).
  const auth = { authorization: `Bearer ${adminToken}` };
  const settings = await (await request.get('/api/v1/settings', { headers: auth })).json();
  const keep = await request.put('/api/v1/settings', { headers: auth, data: { witness_set_threshold: 1000 } });
  expect(keep.status()).toBe(200);
  try {
    const errors = collectErrors(page);
    await signIn(page);
    await page.getByRole('link', { name: 'Mesh', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Mesh' })).toBeVisible();
    const matrix = page.getByTestId('mesh-matrix');
    await expect(matrix.getByRole('rowheader', { name: `Frankfurt ${tag} (DE)` })).toBeVisible();
    await expect(matrix.getByRole('columnheader', { name: `fra-${tag}` })).toBeVisible();
    await page.screenshot({ path: `screenshots/mesh-${info.project.name}.png`, fullPage: true });
    expect(errors).toEqual([]);
  } finally {
    const back = await request.put('/api/v1/settings', {
      headers: auth, data: { witness_set_threshold: settings.witness_set_threshold },
    });
    expect(back.status()).toBe(200);
  }
});

test('send test email queues a message and the outbox says why it was not delivered', async ({ page }, info) => {
  const errors = collectErrors(page);
  const js = info.project.use.javaScriptEnabled !== false;
  await signIn(page);
  await page.getByRole('link', { name: 'Notifications' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  if (js) await hydrated(page);
  const before = await page.getByTestId('outbox').getByRole('row').count().catch(() => 0);
  await page.getByRole('button', { name: 'Send test email' }).click();
  await expect(page.getByRole('status')).toHaveText('Test message queued for 1 target.');
  const tests = page.getByTestId('outbox').getByRole('row').filter({ hasText: 'meshwatch: test message' });
  await expect(tests.first()).toContainText('Not delivered: no email or webhook configured');
  expect(await page.getByTestId('outbox').getByRole('row').count()).toBeGreaterThan(before);
  expect(errors).toEqual([]);
});

test('the routes page shows each route with its servers in rotation', async ({ page, request }, info) => {
  const tag = tagFor(info, 'r');
  await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  await signIn(page);
  await page.getByRole('link', { name: 'Routes', exact: true }).click();
  const germany = page.getByRole('region', { name: `Germany ${tag}` });
  await expect(germany).toContainText(`Frankfurt ${tag} (DE)`);
  await expect(germany.getByTestId('route-server')).toContainText('In rotation');
  expect(errors).toEqual([]);
});

test('the overview counts the fleet by status', async ({ page }) => {
  const errors = collectErrors(page);
  await signIn(page);
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByTestId('status-count')).toHaveCount(7);
  await expect(page.getByRole('heading', { name: 'Latest status changes' })).toBeVisible();
  expect(errors).toEqual([]);
});

test('the servers list filters by country', async ({ page, request }, info) => {
  const tag = tagFor(info, 'f');
  await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  const js = info.project.use.javaScriptEnabled !== false;
  await signIn(page);
  if (js) await hydrated(page);
  await page.getByLabel('Country', { exact: true }).selectOption('NL');
  if (!js) {
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/country=NL/);
  }
  await expect(page.getByRole('row', { name: new RegExp(`Amsterdam ${tag}`) })).toBeVisible();
  await expect(page.getByRole('row', { name: new RegExp(`Frankfurt ${tag}`) })).toBeHidden();
  expect(errors).toEqual([]);
});

test('an API token is created in settings, shown once, works, and is revoked', async ({ page, request }, info) => {
  const errors = collectErrors(page);
  const js = info.project.use.javaScriptEnabled !== false;
  const name = `e2e-${randomUUID().slice(0, 8)}`;
  await signIn(page);
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  if (js) await hydrated(page);
  await page.getByLabel('New token name').fill(name);
  await page.getByLabel('Scope').selectOption('fleet');
  await page.locator('#token-password').fill(operator.password);
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = page.getByLabel('New API token');
  await expect(secret).toHaveText(/^[0-9a-f]{64}$/);
  const token = (await secret.textContent()) ?? '';
  const api = (t: string) => request.get('/api/v1/settings', { headers: { authorization: `Bearer ${t}` } });
  expect((await api(token)).status()).toBe(200);
  // Its scope: fleet, so no actions.
  const actions = await request.get('/api/v1/actions', { headers: { authorization: `Bearer ${token}` } });
  expect(actions.status()).toBe(403);

  await page.reload();
  await expect(page.getByRole('list', { name: 'API tokens' })).toContainText(name);
  await expect(page.getByLabel('New API token')).toHaveCount(0);
  await page.getByRole('button', { name: `Revoke ${name}` }).click();
  await expect(page.getByRole('list', { name: 'API tokens' })).not.toContainText(name);
  expect((await api(token)).status()).toBe(401);
  expect(errors).toEqual([]);
});
