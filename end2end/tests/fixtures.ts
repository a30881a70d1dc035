import { expect, type Page, type APIRequestContext, type TestInfo } from '@playwright/test';
import { adminToken, operator } from '../playwright.config';

/**
 * A tag unique to one test in one project (`h…` hydrated, `n…` no-js,
 * `p…` phone), so that projects never share a test's data.
 */
export function tagFor(info: TestInfo, suffix = ''): string {
  return `${info.project.name.charAt(0)}${suffix}`;
}

/** A fleet unique to one test, so tests never depend on each other's data. */
export function fleetFor(tag: string) {
  return {
    routes: [
      { id: `de-${tag}`, name: `Germany ${tag}`, servers_per_user: 2 },
      { id: `nl-${tag}`, name: `Netherlands ${tag}` },
    ],
    servers: [
      {
        id: `fra-${tag}`, name: `Frankfurt ${tag}`, country: 'DE', routes: [`de-${tag}`],
        entry_points: [{ id: `fra-${tag}-vless`, protocol: 'vless', host: '127.0.20.1', port: 4443 }],
      },
      {
        id: `ams-${tag}`, name: `Amsterdam ${tag}`, country: 'NL', routes: [`nl-${tag}`], verifier: true,
        entry_points: [{ id: `ams-${tag}-trojan`, protocol: 'trojan', host: '127.0.20.2', port: 4443 }],
      },
    ],
    users: [{ id: `alice-${tag}`, name: `Alice ${tag}`, routes: [`de-${tag}`, `nl-${tag}`] }],
  };
}

export async function provision(request: APIRequestContext, fleet: object) {
  const response = await request.put('/api/v1/fleet', {
    headers: { authorization: `Bearer ${adminToken}` },
    data: fleet,
  });
  expect(response.status()).toBe(200);
  return response.json();
}

/**
 * Resolves once the WASM has hydrated the page (an Effect sets the flag).
 * A locator, not `waitForFunction`: that evaluates in the page's own world,
 * where the panel's CSP (no 'unsafe-eval') governs it.
 */
export async function hydrated(page: Page) {
  await expect(page.locator('[data-hydrated="true"]').first()).toBeAttached();
}

export async function signIn(page: Page, username = operator.username, password = operator.password) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Fails the test on any console error or uncaught exception (a broken hydration shows up here). */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}
