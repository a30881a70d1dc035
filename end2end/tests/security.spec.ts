import { test, expect, type Page, type Response } from '@playwright/test';
import { collectErrors, fleetFor, hydrated, provision, signIn } from './fixtures';

// Every page is served under a strict Content-Security-Policy: scripts only
// from the panel itself or inline with the answer's nonce, the WASM
// compiled under 'wasm-unsafe-eval', everything else from 'self'. The
// hydrated pages (islands, the live stream, QR codes) must not trip it.

/** Collects CSP violations: the console's reports and the page's own events. */
async function watchViolations(page: Page): Promise<string[]> {
  const reported: string[] = [];
  page.on('console', (msg) => {
    if (msg.text().includes('Content Security Policy')) reported.push(msg.text());
  });
  // Runs before any of the page's scripts, on every navigation.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => {
      seen.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  return reported;
}

async function violationEvents(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
}

/** The document answer's security headers; returns its script nonce. */
function expectSecured(response: Response | null): string {
  expect(response, 'a document response').not.toBeNull();
  const headers = response!.headers();
  const csp = headers['content-security-policy'] ?? '';
  for (const directive of ["default-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"]) {
    expect(csp).toContain(directive);
  }
  const nonce = csp.match(/script-src 'self' 'nonce-([A-Za-z0-9+/=]+)' 'wasm-unsafe-eval'/);
  expect(nonce, csp).not.toBeNull();
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['cache-control']).toBe('no-store');
  return nonce![1];
}

test('signed-in pages carry the security headers and hydrate without a CSP violation', async ({ page, request }, info) => {
  const js = info.project.use.javaScriptEnabled !== false;
  const tag = js ? 'hs' : 'ns';
  await provision(request, fleetFor(tag));
  const errors = collectErrors(page);
  const reported = await watchViolations(page);

  expectSecured(await page.goto('/login'));
  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();

  const pages: [string, string][] = [
    ['/overview', 'Overview'],
    ['/', 'Servers'],
    [`/servers/fra-${tag}`, `Frankfurt ${tag}`],
    [`/users/alice-${tag}`, `Alice ${tag}`],
    ['/settings', 'Settings'],
  ];
  const nonces = new Set<string>();
  for (const [path, heading] of pages) {
    nonces.add(expectSecured(await page.goto(path)));
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    if (path.startsWith('/users/')) {
      await expect(page.getByRole('img', { name: 'QR code of the subscription link' })).toBeVisible();
    }
    if (js) {
      await hydrated(page);
      // The live stream (/events) connects under connect-src 'self'.
      await expect(page.getByTestId('live')).toHaveAttribute('data-live', 'on');
      expect(await violationEvents(page), path).toEqual([]);
    }
  }
  expect(nonces.size, 'a fresh nonce for every answer').toBe(pages.length);
  expect(reported).toEqual([]);
  expect(errors).toEqual([]);
});
