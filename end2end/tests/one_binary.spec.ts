import { test, expect, type Response } from '@playwright/test';
import { bareURL } from '../playwright.config';
import { collectErrors, hydrated, signIn } from './fixtures';

// The release binary alone, started from an empty directory without
// MESHWATCH_SITE_ROOT (start-bare-binary.sh): deploying is copying one file.
test.use({ baseURL: bareURL });

/** Matches the answer for the front end's file of this extension under its version. */
function versioned(extension: string) {
  const path = new RegExp(`^/pkg/meshwatch\\.[0-9a-f]{12}\\.${extension}$`);
  return (response: Response) => path.test(new URL(response.url()).pathname);
}

test('the release binary alone serves the front end built into it', async ({ page }, info) => {
  test.skip(info.project.name !== 'hydrated', 'the front end is what JavaScript runs');
  const errors = collectErrors(page);
  const wasm = page.waitForResponse(versioned('wasm'));
  const css = page.waitForResponse(versioned('css'));

  await signIn(page);
  await expect(page.getByRole('heading', { name: 'Servers' })).toBeVisible();
  await hydrated(page);

  // Versioned names: kept for good, sent precompressed, typed for streaming compilation.
  const wasmHeaders = await (await wasm).allHeaders();
  expect(wasmHeaders['cache-control']).toContain('immutable');
  expect(wasmHeaders['content-type']).toBe('application/wasm');
  expect(['br', 'gzip']).toContain(wasmHeaders['content-encoding']);
  const cssHeaders = await (await css).allHeaders();
  expect(cssHeaders['cache-control']).toContain('immutable');
  expect(cssHeaders['content-type']).toMatch(/^text\/css/);

  // Other files are revalidated; another build's versioned files are gone.
  const icon = await page.request.get('/favicon.svg');
  expect(icon.status()).toBe(200);
  expect(icon.headers()['cache-control']).toBe('no-cache');
  expect(icon.headers()['content-type']).toBe('image/svg+xml');
  const old = await page.request.get('/pkg/meshwatch.000000000000.wasm');
  expect(old.status()).toBe(404);

  expect(errors).toEqual([]);
});
