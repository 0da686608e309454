/**
 * ROUTES.md stays true: one row per operation of the OpenAPI document, its call sites equal to the
 * `api.*` calls of `packages/web/src`, a reason for every operation no page calls, and only test
 * files that exist. Plain vitest: no browser, no server (the sources are read as text).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserClientPath,
  NO_PAGE_REASONS,
  openapiOperations,
  pageCalls,
  reasonOf,
  tablePath,
  tableRows,
  testDir,
} from './routes-table.ts';

const ops = openapiOperations();
const calls = pageCalls();
const rows = tableRows();
const sites = (op: string) => [...(calls.get(op) ?? [])].sort();

describe('packages/web/ROUTES.md', () => {
  it('reads the document and the call sites (the scan itself is not empty)', () => {
    expect(ops.length).toBeGreaterThan(100);
    expect(ops).toContain('GET /shares/{name}/access');
    expect(sites('GET /shares/{name}/access')).toEqual(['pages/Shares.tsx', 'pages/UserPermissions.tsx']);
    // a path held in a const of a conditional: both branches are found
    expect(sites('POST /disks/array/replace/plan')).toEqual(['pages/DiskWizard.tsx']);
    expect(sites('POST /disks/array/upgrade/plan')).toEqual(['pages/DiskWizard.tsx']);
    // the stream helpers of the browser client call the routes named here
    const browser = fs.readFileSync(browserClientPath, 'utf8');
    expect(browser).toContain("'/stacks/{name}/logs'");
    expect(browser).toContain('`${base}/events`');
  });

  it('every route a page calls is an operation of the document', () => {
    expect([...calls.keys()].filter((r) => !ops.includes(r))).toEqual([]);
  });

  it('has exactly one row per operation, and no other', () => {
    const named = rows.map((r) => r.operation);
    expect(named.filter((op, i) => named.indexOf(op) !== i)).toEqual([]);
    expect(named.filter((op) => !ops.includes(op))).toEqual([]);
    expect(ops.filter((op) => !named.includes(op))).toEqual([]);
  });

  it('names as call sites exactly the files that call the operation (none where no page calls it)', () => {
    const wrong = rows
      .filter((r) => JSON.stringify([...r.callSites].sort()) !== JSON.stringify(sites(r.operation)))
      .map(
        (r) =>
          `ROUTES.md:${r.line} ${r.operation}: table ${r.callSites.join(', ') || '—'}; src ${sites(r.operation).join(', ') || '—'}`,
      );
    expect(wrong).toEqual([]);
  });

  it('gives a reason of a known kind exactly where no page calls the operation', () => {
    const wrong = rows.flatMap((r) => {
      const reason = reasonOf(r.why);
      if (r.callSites.length === 0) {
        if (!reason || !(NO_PAGE_REASONS as readonly string[]).includes(reason))
          return [
            `ROUTES.md:${r.line} ${r.operation}: no page and no reason (**${NO_PAGE_REASONS.join('**, **')}**)`,
          ];
        if (r.tests.length > 0) return [`ROUTES.md:${r.line} ${r.operation}: no page, yet a browser test`];
      } else if (reason) return [`ROUTES.md:${r.line} ${r.operation}: a page calls it, yet "${reason}"`];
      return [];
    });
    expect(wrong).toEqual([]);
  });

  it('names only browser test files that exist, and says "none" exactly where it names none', () => {
    const wrong = rows.flatMap((r) => [
      ...r.tests
        .filter((t) => !t.endsWith('.system.test.ts') || !fs.existsSync(path.join(testDir, t)))
        .map((t) => `ROUTES.md:${r.line} ${r.operation}: ${t} is not a browser test of packages/web/test`),
      ...((r.tests.length === 0) !== /^none\b/.test(r.testCell)
        ? [`ROUTES.md:${r.line} ${r.operation}: either name test files or say "none (why)"`]
        : []),
    ]);
    expect(wrong).toEqual([]);
  });

  it('states the totals the rows add up to', () => {
    const paged = rows.filter((r) => r.callSites.length > 0);
    const tested = paged.filter((r) => r.tests.length > 0).length;
    const reasons = NO_PAGE_REASONS.map(
      (k) => [k, rows.filter((r) => r.callSites.length === 0 && reasonOf(r.why) === k).length] as const,
    )
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`);
    const totals =
      `Totals: ${rows.length} operations; ${paged.length} called by a page (${tested} driven by a browser ` +
      `test, ${paged.length - tested} not); ${rows.length - paged.length} without a page (${reasons.join(', ')}).`;
    expect(/Totals: [^.]*\./.exec(fs.readFileSync(tablePath, 'utf8').replace(/\s+/g, ' '))?.[0]).toBe(totals);
  });
});
