/**
 * The notifications page in chromium against the real service and a loopback webhook receiver:
 * a webhook channel added, its test send received, a name taken refused with the API's sentence,
 * an event routed to it from the matrix (its severity changed), the event raised on the server
 * delivered to the receiver and shown live in the alerts; the channel edited and deleted; a
 * viewer's page read-only; axe-core and screenshots.
 */
import { startEventReceiver, type Sandbox, startSandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

let s: Sandbox;
let tab: Tab;
let receiver: Awaited<ReturnType<typeof startEventReceiver>>;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });

async function eventually<T>(
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 15_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  receiver = await startEventReceiver();
  s = await startSandbox({});
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
  await receiver?.close();
}, 120_000);

describe('the notifications page', () => {
  it('adds a webhook channel and sends a test the receiver gets', async () => {
    await tab.page.getByRole('link', { name: 'Notifications' }).click();
    await heading('Notifications').waitFor();
    await tab.page.getByLabel('Channel name').fill('Home hook');
    await tab.page.getByLabel('Webhook URL').fill(receiver.url);
    await tab.page.getByRole('button', { name: 'Add channel' }).click();
    await tab.page
      .getByTestId('channels')
      .getByRole('row', { name: /Home hook webhook yes/ })
      .waitFor();
    await tab.page.getByRole('button', { name: 'Send a test to Home hook' }).click();
    await tab.page.getByTestId('test-result').filter({ hasText: 'Test delivered.' }).waitFor();
    expect(receiver.of('test')).toHaveLength(1);
    expect(await check(tab.page, '50-notifications')).toEqual([]);
  });

  it('a second channel whose name differs only in case is refused with the sentence', async () => {
    await tab.page.getByLabel('Channel name').fill('HOME HOOK');
    await tab.page.getByLabel('Webhook URL').fill(receiver.url);
    await tab.page.getByRole('button', { name: 'Add channel' }).click();
    const refused = await s.call('POST', '/notifications/channels', {
      name: 'HOME HOOK',
      type: 'webhook',
      webhookUrl: receiver.url,
    });
    expect(refused.status).toBe(409);
    await tab.page.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    expect((await s.call('GET', '/notifications/channels')).body.channels).toHaveLength(1);
  });

  it('routes an event from the matrix (keyboard); the raised event reaches the receiver and shows live', async () => {
    const [channel] = (await s.call('GET', '/notifications/channels')).body.channels;
    const box = tab.page.getByRole('checkbox', { name: 'credential_reset to Home hook' });
    await box.focus();
    await tab.page.keyboard.press('Space');
    await eventually(() => box.isChecked());
    await choose(tab.page, 'Severity of credential_reset', 'warning');
    const routed = await eventually(async () => {
      const r = (await s.call('GET', '/notifications/routing/credential_reset')).body;
      return r.severity === 'warning' ? r : undefined;
    });
    expect(routed, JSON.stringify(routed)).toMatchObject({
      eventType: 'credential_reset',
      severity: 'warning',
      channelIds: [channel.id],
      isDefaultSeverity: false,
    });
    expect(await check(tab.page, '51-notifications-routed')).toEqual([]);
    await s.server.ctx.hooks.raise?.({
      eventType: 'credential_reset',
      title: 'Routed from the matrix',
      message: 'Raised while the page was open.',
    });
    await tab.page.getByTestId('alerts').getByText('Routed from the matrix').waitFor({ timeout: 15_000 });
    const [delivered] = await eventually(
      () => receiver.of('credential_reset').length > 0 && receiver.of('credential_reset'),
    );
    expect(delivered).toMatchObject({ title: 'Routed from the matrix', severity: 'warning' });
  });

  it('edits the channel (disabled) and a viewer sees the page read-only', async () => {
    await tab.page.getByRole('button', { name: 'Edit Home hook' }).click();
    await tab.page.getByRole('heading', { name: 'Edit Home hook' }).waitFor();
    expect(await tab.page.getByLabel('Webhook URL').inputValue()).toBe(receiver.url);
    await tab.page.locator('form').getByText('Enabled', { exact: true }).click();
    await tab.page.getByRole('button', { name: 'Save channel' }).click();
    await tab.page
      .getByTestId('channels')
      .getByRole('row', { name: /Home hook webhook no/ })
      .waitFor();
    const [channel] = (await s.call('GET', '/notifications/channels')).body.channels;
    expect(channel).toMatchObject({ enabled: false, webhookUrl: receiver.url });

    expect(
      (await s.call('POST', '/users', { username: 'vic', role: 'viewer', password: 'vic password' })).status,
    ).toBe(201);
    const viewer = await openTab();
    try {
      await signIn(viewer.page, s.url, 'vic', 'vic password');
      await viewer.page.goto(`${s.url}/notifications`);
      await viewer.page.getByTestId('routing').waitFor();
      await viewer.page.getByTestId('channels').waitFor();
      const enabled = await viewer.page
        .locator('main button:not([disabled]):not([aria-disabled=true]), main input:not([disabled])')
        .count();
      expect(enabled).toBe(0);
      expect(await check(viewer.page, '52-viewer-notifications')).toEqual([]);
      expect(viewer.problems).toEqual([]);
    } finally {
      await viewer.close();
    }
  });

  it('deletes the channel', async () => {
    await tab.page.getByRole('button', { name: 'Delete Home hook…' }).click();
    await tab.page.getByRole('dialog').getByRole('button', { name: 'Delete channel' }).click();
    await tab.page.getByText('No channels: nothing is sent anywhere.').waitFor();
    expect((await s.call('GET', '/notifications/channels')).body.channels).toEqual([]);
    expect((await s.call('GET', '/notifications/routing/credential_reset')).body.channelIds).toEqual([]);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
