import { defineConfig, devices } from '@playwright/test';
import * as os from 'node:os';
import * as path from 'node:path';

// The panel under test: the release build of meshwatch-server, started by
// start-server.sh with a fresh database on a loopback port of its own.
const port = Number(process.env.E2E_PORT ?? 3123);
export const baseURL = `http://127.0.0.1:${port}`;
// The live demo fleet (real agents on 127.0.10.x), faults on request.
const demoPort = Number(process.env.E2E_DEMO_PORT ?? 3124);
export const demoURL = `http://127.0.0.1:${demoPort}`;
// The release binary alone, run from an empty directory: the front end it
// serves is the one built into it (start-bare-binary.sh).
const barePort = Number(process.env.E2E_BARE_PORT ?? 3125);
export const bareURL = `http://127.0.0.1:${barePort}`;
// The panel behind nginx with TLS, configured by deploy/nginx.conf as
// shipped (start-tls-proxy.sh): the https address browsers use, the
// shipped port-80 redirect, the panel's own port, and its log.
const tlsPort = Number(process.env.E2E_TLS_PORT ?? 3443);
export const tlsURL = `https://127.0.0.1:${tlsPort}`;
export const tlsRedirectPort = Number(process.env.E2E_TLS_HTTP_PORT ?? 3480);
export const tlsPanelPort = Number(process.env.E2E_TLS_PANEL_PORT ?? 3126);
export const tlsPanelLog = path.join(os.tmpdir(), `meshwatch-e2e-tls-${tlsPort}.log`);
// A panel of its own for the 1000-server fleet the big-fleet tests build.
const bigPort = Number(process.env.E2E_BIG_PORT ?? 3127);
export const bigURL = `http://127.0.0.1:${bigPort}`;
export const adminToken = 'e2e-admin-token-0123456789';
export const operator = { username: 'e2e', password: 'e2e-password-0123' };

export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // The list in the log, and a JUnit report CI keeps (end2end/results/junit.xml).
  reporter: [['list'], ['junit', { outputFile: 'results/junit.xml' }]],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  projects: [
    { name: 'hydrated', use: { ...devices['Desktop Chrome'], javaScriptEnabled: true } },
    { name: 'no-js', use: { ...devices['Desktop Chrome'], javaScriptEnabled: false } },
    // A phone's width in dark mode: the panel's pages and their scans.
    {
      name: 'phone',
      use: { ...devices['Pixel 7'], colorScheme: 'dark', javaScriptEnabled: true },
      testMatch: ['panel.spec.ts', 'accessibility.spec.ts'],
    },
  ],
  webServer: [{
    command: 'bash ./start-server.sh',
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    env: {
      E2E_PORT: String(port),
      MESHWATCH_ADMIN_TOKEN: adminToken,
      E2E_OPERATOR: operator.username,
      E2E_PASSWORD: operator.password,
    },
  }, {
    command: 'bash ./start-server.sh',
    url: `${bigURL}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    env: {
      E2E_PORT: String(bigPort),
      MESHWATCH_ADMIN_TOKEN: adminToken,
      MESHWATCH_STATUS_PAGE: '1',
      E2E_OPERATOR: operator.username,
      E2E_PASSWORD: operator.password,
    },
  }, {
    command: 'bash ./start-demo.sh',
    url: `${demoURL}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    env: {
      E2E_DEMO_PORT: String(demoPort),
      MESHWATCH_ADMIN_TOKEN: adminToken,
      MESHWATCH_OPERATOR_PASSWORD: operator.password,
    },
  }, {
    command: 'bash ./start-bare-binary.sh',
    url: `${bareURL}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    env: {
      E2E_BARE_PORT: String(barePort),
      E2E_OPERATOR: operator.username,
      E2E_PASSWORD: operator.password,
    },
  }, {
    command: 'bash ./start-tls-proxy.sh',
    url: `${tlsURL}/readyz`,
    ignoreHTTPSErrors: true, // the certificate is self-signed, made at start
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    env: {
      E2E_TLS_PORT: String(tlsPort),
      E2E_TLS_HTTP_PORT: String(tlsRedirectPort),
      E2E_TLS_PANEL_PORT: String(tlsPanelPort),
      E2E_TLS_LOG: tlsPanelLog,
      MESHWATCH_ADMIN_TOKEN: adminToken,
      E2E_OPERATOR: operator.username,
      E2E_PASSWORD: operator.password,
    },
  }],
});
