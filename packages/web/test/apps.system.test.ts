/**
 * The apps pages in chromium against the real service and a private dockerd: a busybox stack
 * installed from a lab catalog source (through the API), then started from its page (the job
 * followed live; its port answers on loopback), its logs followed live over SSE, stopped, an update with a
 * snapshot refused with the API's sentence, and removed with the typed phrase (its folder gone,
 * its data kept); axe-core and screenshots.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, startSandbox, waitJob } from '@appliance/api-server/testing';
import {
  freeLoopbackPort,
  type PrivateDockerd,
  requirePrerequisites,
  startPrivateDockerd,
} from '@appliance/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { signIn } from './signin.ts';

let dockerd: PrivateDockerd;
let s: Sandbox;
let tab: Tab;
let hostRoot: string;
let port = 0;
const previousDockerHost = process.env['DOCKER_HOST'];
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const appdata = () => path.join(s.root, 'mnt/cache/appdata');
const stackDir = () => path.join(s.root, 'var/lib/appliance/stacks/hello');

const TEMPLATE = `services:
  web:
    image: \${IMAGE}
    stop_grace_period: 1s
    command: ["sh", "-c", "mkdir -p /www && echo hello from the app > /www/index.html && echo web says hello && exec httpd -f -p 80 -h /www"]
    volumes:
      - "\${APPDATA}:/data"
    ports:
      - "127.0.0.1:\${WEBUI_PORT}:80"
x-service:
  schema: 1
  id: hello
  revision: 1
  title: Hello
  categories: [testing]
  docs: https://example.org/hello
  inputs:
    IMAGE: {kind: string, default: busybox, label: Image}
    APPDATA: {kind: path, role: appdata, default: /mnt/cache/appdata, label: App data folder}
    WEBUI_PORT: {kind: port, default: 18080, label: Web UI port}
`;

const fetchText = async (p: number) => {
  try {
    const r = await fetch(`http://127.0.0.1:${p}/`, { signal: AbortSignal.timeout(3000) });
    return await r.text();
  } catch {
    return null;
  }
};

beforeAll(async () => {
  await requirePrerequisites({ root: true, tools: ['dockerd', 'docker', 'docker-compose'] });
  dockerd = await startPrivateDockerd();
  process.env['DOCKER_HOST'] = dockerd.host;
  hostRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'web-apps-hostroot-'));
  for (const d of ['proc', 'sys', 'dev']) fs.symlinkSync(`/${d}`, path.join(hostRoot, d));
  fs.mkdirSync(path.join(hostRoot, 'etc'));
  fs.writeFileSync(path.join(hostRoot, 'etc/group'), 'root:x:0:\n');
  s = await startSandbox({ hostRoot });
  expect((await s.call('POST', '/catalog/sources', { id: 'lab', kind: 'directory' })).status).toBe(201);
  const lab = path.join(s.root, 'var/lib/appliance/catalog/lab/hello');
  fs.mkdirSync(lab, { recursive: true });
  fs.writeFileSync(path.join(lab, 'compose.yaml'), TEMPLATE);
  fs.mkdirSync(path.join(appdata(), 'hello'), { recursive: true });
  fs.writeFileSync(path.join(appdata(), 'hello/settings.json'), '{"kept":true}');
  port = await freeLoopbackPort();
  const r = await s.call('POST', '/templates/hello/install', {
    name: 'hello',
    values: { IMAGE: dockerd.busyboxImage, APPDATA: path.join(appdata(), 'hello'), WEBUI_PORT: String(port) },
  });
  expect(r.status, r.text).toBe(201);
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
  await dockerd?.stop();
  if (previousDockerHost === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = previousDockerHost;
  if (hostRoot) fs.rmSync(hostRoot, { recursive: true, force: true });
}, 120_000);

describe('the apps pages', () => {
  it('lists the installed stack, not started yet', async () => {
    await tab.page.getByRole('link', { name: 'Apps' }).click();
    await heading('Apps').waitFor();
    await tab.page
      .getByTestId('stacks')
      .getByRole('row', { name: /hello not created lab\/hello r1/ })
      .waitFor();
    expect(await check(tab.page, '40-apps')).toEqual([]);
  });

  it('starts the stack: the job is followed to the end, the port answers, the logs show its output', async () => {
    await tab.page.getByRole('link', { name: 'hello' }).click();
    await heading('App hello').waitFor();
    await tab.page.getByRole('button', { name: 'Start', exact: true }).click();
    await tab.page.getByTestId('stack-job').filter({ hasText: 'succeeded' }).waitFor({ timeout: 120_000 });
    await tab.page.getByTestId('stack-status').filter({ hasText: 'running' }).waitFor({ timeout: 30_000 });
    expect(await fetchText(port)).toBe('hello from the app\n');
    await tab.page.getByTestId('stack-log-lines').filter({ hasText: 'web | web says hello' }).waitFor();
    // followed live (GET /stacks/hello/logs?follow=1 as server-sent events): a line the container
    // writes now shows without a reload
    await tab.page.getByTestId('stack-logs-state').filter({ hasText: 'Following live' }).waitFor();
    const [container] = (await dockerd.docker(['ps', '-q'])).stdout.trim().split('\n');
    await dockerd.docker(['exec', container!, 'sh', '-c', 'echo a line written later > /proc/1/fd/1']);
    await tab.page.getByTestId('stack-log-lines').filter({ hasText: 'web | a line written later' }).waitFor();
    expect(await check(tab.page, '41-app')).toEqual([]);
  });

  it('an update with a snapshot and no backup plan is refused with the sentence; nothing started', async () => {
    await tab.page.getByText('Take a backup snapshot before updating').click();
    await tab.page.getByRole('button', { name: 'Update', exact: true }).click();
    const refused = await s.call('POST', '/stacks/hello/update', { snapshot: true });
    expect(refused.status).toBe(409);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    const jobs = (await s.call('GET', '/jobs')).body.jobs.map((j: { type: string }) => j.type);
    expect(jobs).not.toContain('stack.update');
  });

  it('stops, then removes with the typed phrase: the folder goes, the data stays', async () => {
    await tab.page.getByRole('button', { name: 'Stop', exact: true }).click();
    await tab.page.getByTestId('stack-status').filter({ hasText: 'stopped' }).waitFor({ timeout: 120_000 });
    await tab.page.getByTestId('stack-logs-state').filter({ hasText: 'No container runs' }).waitFor();
    expect(await fetchText(port)).toBeNull();
    expect(fs.existsSync(stackDir())).toBe(true);
    await tab.page.getByRole('button', { name: 'Remove…' }).click();
    const dialog = tab.page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Remove app' });
    await dialog.getByRole('textbox').fill('DELETE Hello');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill('DELETE hello');
    expect(await check(tab.page, '42-app-remove')).toEqual([]);
    await confirm.click();
    await tab.page.getByRole('button', { name: 'Back to the apps' }).click({ timeout: 120_000 });
    await tab.page.getByText('No apps installed.').waitFor();
    const jobs = (await s.call('GET', '/jobs')).body.jobs as Array<{ id: string; type: string }>;
    const removal = await waitJob(s, jobs.find((j) => j.type === 'stack.remove')!.id);
    expect(removal.state).toBe('succeeded');
    expect(fs.existsSync(stackDir())).toBe(false);
    expect(fs.readFileSync(path.join(appdata(), 'hello/settings.json'), 'utf8')).toBe('{"kept":true}');
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
