import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tlsPanelLog, tlsPanelPort, tlsRedirectPort, tlsURL } from '../playwright.config';
import { collectErrors, fleetFor, hydrated, provision, signIn } from './fixtures';

// The panel as production runs it: behind nginx with TLS, configured by
// deploy/nginx.conf as shipped (end2end/start-tls-proxy.sh), with
// MESHWATCH_PUBLIC_URL set to the https address. The certificate is
// self-signed, so the browser is told to accept it; nothing else is relaxed.
test.use({ baseURL: tlsURL, ignoreHTTPSErrors: true });
test.beforeEach(({}, info) => {
  test.skip(info.project.name !== 'hydrated', 'the proxy journey runs once, hydrated');
});

test('through the TLS proxy: a __Host- session, a form post, a live change and the subscription', async ({ page, request }) => {
  const tag = 'tls';
  const tokens = await provision(request, fleetFor(tag));
  const errors = collectErrors(page);

  // What a VPN app fetches, through https.
  const sub = await request.get(`/sub/${tokens.sub_tokens[`alice-${tag}`]}?format=plain`);
  expect(sub.status()).toBe(200);
  expect(sub.headers()['strict-transport-security']).toBe('max-age=31536000');
  expect(await sub.text()).toContain('vless://');
  expect(sub.headers()['content-encoding'], 'subscriptions go out plain').toBeUndefined();

  // Signing in is a form post: its Origin is the public URL, so it passes.
  const login = await page.goto('/login');
  expect(login?.headers()['content-security-policy']).toContain("default-src 'self'");
  expect(login?.headers()['content-encoding'], 'pages go out gzipped').toBe('gzip');
  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
  const cookies = await page.context().cookies(tlsURL);
  const session = cookies.find((c) => c.name === '__Host-meshwatch_session');
  expect(session, `cookies: ${cookies.map((c) => c.name).join(', ')}`).toBeDefined();
  expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
  expect(cookies.map((c) => c.name)).not.toContain('meshwatch_session');

  // The subscription link starts with the public URL.
  await page.goto(`/users/alice-${tag}`);
  await expect(page.getByLabel('Subscription link', { exact: true }))
    .toHaveValue(`${tlsURL}/sub/${tokens.sub_tokens[`alice-${tag}`]}`);

  // A server function's form post passes the origin check too.
  await page.goto(`/servers/ams-${tag}`);
  await hydrated(page);
  await page.getByRole('button', { name: 'Stop using this server to check blocking on the others' }).click();
  await expect(page.getByRole('button', { name: 'Use this server to check blocking on the others' })).toBeVisible();

  // The live stream comes through unbuffered: a report changes the open card.
  await page.goto(`/servers/fra-${tag}`);
  await hydrated(page);
  await expect(page.getByTestId('live')).toHaveAttribute('data-live', 'on');
  await expect(page.getByTestId('server-status')).toContainText('No data from server');
  await page.evaluate(() => { (window as unknown as { stillHere: boolean }).stillHere = true; });
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

  expect(errors).toEqual([]);
});

test('the panel takes the client address from the proxy, not from a header the client sent', async ({ request }) => {
  // nginx reaches the panel from 127.0.0.2, the one trusted proxy; the
  // client is 127.0.0.1. A forged X-Forwarded-For must change nothing.
  const username = `xff-${randomUUID().slice(0, 8)}`;
  const response = await request.post('/login', {
    form: { username, password: 'not the password' },
    headers: { 'x-forwarded-for': '203.0.113.9' },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(303);
  expect(response.headers()['location']).toBe('/login?error=invalid');
  const logged = () => readFileSync(tlsPanelLog, 'utf8')
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .find((line) => line.includes('failed sign-in') && line.includes(`username=${username}`)) ?? '';
  await expect.poll(logged).toContain('address=127.0.0.1');
  expect(logged()).not.toContain('203.0.113.9');
});

test('plain http on the proxy redirects to https', async ({ request }) => {
  const response = await request.get(`http://127.0.0.1:${tlsRedirectPort}/login`, { maxRedirects: 0 });
  expect(response.status()).toBe(301);
  // $host: a port other than 443 is not kept (production listens on 443).
  expect(response.headers()['location']).toBe('https://127.0.0.1/login');
});

test('the shipped Caddyfile is valid', async () => {
  let caddy = true;
  try {
    execFileSync('caddy', ['version'], { stdio: 'ignore' });
  } catch {
    caddy = false;
  }
  test.skip(!caddy, 'caddy is not installed (scripts/setup.sh installs it where Debian has a package)');
  const shipped = readFileSync(path.resolve(__dirname, '../../deploy/Caddyfile'), 'utf8');
  expect(shipped).toContain('reverse_proxy 127.0.0.1:3000');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'meshwatch-caddy-'));
  try {
    const file = path.join(dir, 'Caddyfile');
    writeFileSync(file, shipped.replace('127.0.0.1:3000', `127.0.0.1:${tlsPanelPort}`));
    // Its own home: validating writes Caddy's data and config directories.
    execFileSync('caddy', ['validate', '--adapter', 'caddyfile', '--config', file], {
      stdio: 'pipe',
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Last in this file: it spends the proxy's sign-in budget for 127.0.0.1.
test('the proxy keeps /metrics and /readyz to the panel\'s host and paces sign-ins', async ({ request }) => {
  for (const path of ['/metrics', '/readyz']) {
    expect((await request.get(path)).status(), path).toBe(403);
  }
  const statuses: number[] = [];
  for (let i = 0; i < 40 && !statuses.includes(429); i++) {
    const response = await request.post('/login', {
      form: { username: `pace-${i}`, password: 'not the password' },
      maxRedirects: 0,
    });
    statuses.push(response.status());
  }
  expect(statuses).toContain(429);
  // The first burst got through to the panel.
  expect(statuses.slice(0, 10).every((s) => s === 303)).toBe(true);
  // Reading the sign-in page is not paced.
  expect((await request.get('/login')).status()).toBe(200);
});
