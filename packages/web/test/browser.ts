/**
 * Debian's chromium driven by playwright-core (no browser download): headless, a fresh profile per
 * context, no background traffic. `check(page, name)` runs axe-core on the page (no serious or
 * critical violation allowed), saves a screenshot where CI keeps reports, and fails on any
 * Content-Security-Policy violation the page reported.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { requirePrerequisites } from '@appliance/lab';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = path.join(import.meta.dirname, '..', '.reports', 'screenshots');
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Tab {
  context: BrowserContext;
  page: Page;
  /** CSP violations and page errors seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** A browser with a fresh user-data-dir and one page. */
export async function openTab(options: { width?: number; height?: number } = {}): Promise<Tab> {
  await requirePrerequisites({ tools: [CHROMIUM] });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  // what was blocked and where (the console line names only the directive)
  await context.addInitScript(
    `document.addEventListener('securitypolicyviolation', (e) => console.error('Refused by CSP:', e.violatedDirective, e.sourceFile, e.lineNumber))`,
  );
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return {
    context,
    page,
    problems,
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core in the page (evaluated through the DevTools protocol: the page's CSP stays in force). */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(`${axeSource}\n;0`);
  const result = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  return result;
}

/** Serious or critical axe violations of the page, and its screenshot under SCREENSHOTS. */
export async function check(page: Page, name: string): Promise<AxeViolation[]> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const violations = await axe(page);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
