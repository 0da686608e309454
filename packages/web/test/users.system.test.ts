/**
 * The users page in chromium against the real service (no array needed): a user created, its
 * password changed (the new one signs in over the API), its role changed to share access only
 * (its token and sign-in refused) and back to viewer, a refused role change shown, a group's membership saved (read back),
 * a token created with its secret shown once (it authenticates; its last use appears) and revoked
 * (then refused), a user deleted with the typed name; refusals shown as the API's sentences;
 * axe-core and a screenshot.
 */
import { startSandbox, type Sandbox } from '@appliance/api-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check, openTab, type Tab } from './browser.ts';
import { choose, signIn } from './signin.ts';

let s: Sandbox;
let tab: Tab;
const heading = (name: string | RegExp) => tab.page.getByRole('heading', { level: 1, name });
const alert = (text: string) => tab.page.getByRole('alert').filter({ hasText: text });
/** A token request with the account's password (Basic): 201 when the password is right. */
const basic = (user: string, password: string) =>
  fetch(`${s.url}/api/v1/tokens`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name: `check ${Math.random()}`, role: 'viewer' }),
  });

beforeAll(async () => {
  s = await startSandbox({});
  tab = await openTab();
  await signIn(tab.page, s.url, 'admin', s.adminPassword);
}, 300_000);

afterAll(async () => {
  await tab?.close();
  await s?.close();
}, 120_000);

describe('the users page', () => {
  it('creates a viewer; a taken name is refused with the sentence', async () => {
    await tab.page.getByRole('link', { name: 'Users' }).click();
    await heading('Users and tokens').waitFor();
    await tab.page.getByLabel('Username').fill('vic');
    await choose(tab.page, 'Role', 'viewer (reads everything, changes nothing)');
    await tab.page.getByLabel('Password (optional)').fill('first password');
    await tab.page.getByRole('button', { name: 'Create user' }).click();
    await tab.page
      .getByTestId('users')
      .getByRole('row', { name: /vic viewer/ })
      .waitFor();
    expect((await basic('vic', 'first password')).status).toBe(201);

    await tab.page.getByLabel('Username').fill('VIC');
    await tab.page.getByRole('button', { name: 'Create user' }).click();
    const refused = await s.call('POST', '/users', { username: 'VIC' });
    expect(refused.status).toBe(409);
    await alert(refused.body.message).waitFor();
  });

  it("changes a user's password in a dialog", async () => {
    await tab.page.getByRole('button', { name: 'Change the password of vic' }).click();
    const dialog = tab.page.getByRole('dialog');
    await dialog.getByLabel('New password').fill('second password');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await basic('vic', 'first password')).status).toBe(401);
    expect((await basic('vic', 'second password')).status).toBe(201);
  });

  it("changes a user's role in a dialog: share access only revokes its token and its sign-in, viewer restores the sign-in", async () => {
    const users = (await s.call('GET', '/users')).body.users as Array<{ id: string; username: string }>;
    const vic = users.find((u) => u.username === 'vic')!;
    const minted = await basic('vic', 'second password');
    expect(minted.status).toBe(201);
    const token = ((await minted.json()) as { token: string }).token;
    const asVic = () => fetch(`${s.url}/api/v1/shares`, { headers: { authorization: `Bearer ${token}` } });
    expect((await asVic()).status).toBe(200);
    // the administrator's role never changes: its control is disabled, and the API refuses it too
    expect(await tab.page.getByRole('button', { name: 'Change the role of admin' }).isDisabled()).toBe(true);
    const admin = users.find((u) => u.username === 'admin')!;
    expect((await s.call('PATCH', `/users/${admin.id}`, { role: 'viewer' })).status).toBe(403);

    await tab.page.getByRole('button', { name: 'Change the role of vic' }).click();
    const dialog = tab.page.getByRole('dialog');
    await choose(tab.page, 'New role of vic', 'share access only (no sign-in)');
    await dialog.getByText('every API token of vic is revoked').waitFor();
    expect(await check(tab.page, '33-users-role')).toEqual([]);
    await dialog.getByRole('button', { name: 'Set role' }).click();
    await dialog.waitFor({ state: 'detached' });
    await tab.page
      .getByTestId('users')
      .getByRole('row', { name: /vic share access only/ })
      .waitFor();
    expect((await s.call('GET', `/users/${vic.id}`)).body.role).toBe('share-only');
    expect((await asVic()).status).toBe(401);
    expect((await basic('vic', 'second password')).status).not.toBe(201);

    await tab.page.getByRole('button', { name: 'Change the role of vic' }).click();
    await choose(tab.page, 'New role of vic', 'viewer (reads everything, changes nothing)');
    await dialog.getByRole('button', { name: 'Set role' }).click();
    await dialog.waitFor({ state: 'detached' });
    await tab.page
      .getByTestId('users')
      .getByRole('row', { name: /vic viewer/ })
      .waitFor();
    expect((await s.call('GET', `/users/${vic.id}`)).body.role).toBe('viewer');
    expect((await basic('vic', 'second password')).status).toBe(201);
  });

  it('shows the refusal of a role change as the API sentence (the account deleted meanwhile)', async () => {
    const made = await s.call('POST', '/users', { username: 'gone', role: 'viewer' });
    expect(made.status).toBe(201);
    await tab.page.reload();
    await heading('Users and tokens').waitFor();
    await tab.page.getByRole('button', { name: 'Change the role of gone' }).click();
    const dialog = tab.page.getByRole('dialog');
    await choose(tab.page, 'New role of gone', 'share access only (no sign-in)');
    expect((await s.call('DELETE', `/users/${made.body.id}`)).status).toBe(204);
    await dialog.getByRole('button', { name: 'Set role' }).click();
    const refused = await s.call('PATCH', `/users/${made.body.id}`, { role: 'share-only' });
    expect(refused.status).toBe(404);
    await dialog.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('creates a group and saves its members as one full replace', async () => {
    await tab.page.getByLabel('Group name').fill('family');
    await tab.page.getByRole('button', { name: 'Create group' }).click();
    await tab.page.getByText('vic in family').click();
    await tab.page.getByRole('button', { name: 'Save members of family' }).click();
    await tab.page.getByRole('status').filter({ hasText: 'Members saved.' }).waitFor();
    const users = (await s.call('GET', '/users')).body.users as Array<{ id: string; username: string }>;
    const vic = users.find((u) => u.username === 'vic')!;
    const groups = (await s.call('GET', '/user-groups')).body.groups;
    expect(groups).toEqual([expect.objectContaining({ name: 'family', memberUserIds: [vic.id] })]);
    expect(await check(tab.page, '30-users')).toEqual([]);
  });

  it('deletes a group from its dialog; the members form around the trigger is not submitted too', async () => {
    await tab.page.getByLabel('Group name').fill('guests');
    await tab.page.getByRole('button', { name: 'Create group' }).click();
    await tab.page.getByRole('button', { name: 'Save members of guests' }).waitFor();
    const writes: string[] = [];
    const seen = (r: { method(): string; url(): string }) => {
      if (r.method() !== 'GET' && r.url().includes('/api/v1/user-groups'))
        writes.push(`${r.method()} ${r.url()}`);
    };
    tab.page.on('request', seen);
    await tab.page.getByRole('button', { name: 'Delete group guests…' }).click();
    await tab.page.getByRole('dialog').getByRole('button', { name: 'Delete group' }).click();
    await tab.page.getByRole('button', { name: 'Save members of guests' }).waitFor({ state: 'detached' });
    tab.page.off('request', seen);
    // the dialog's submit does not bubble (through React's tree) to the members form
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^DELETE .*\/api\/v1\/user-groups\/[^/]+$/);
    const groups = (await s.call('GET', '/user-groups')).body.groups as Array<{ name: string }>;
    expect(groups.map((g) => g.name)).toEqual(['family']);
  });

  it('creates a token shown once, used, then revoked and refused', async () => {
    await tab.page.getByLabel('Token name').fill('backup script');
    await choose(tab.page, 'Token role', 'viewer');
    await tab.page.getByRole('button', { name: 'Create token' }).click();
    const secret = ((await tab.page.getByTestId('token-secret').textContent()) ?? '').trim();
    expect(secret.length).toBeGreaterThan(20);
    const used = await fetch(`${s.url}/api/v1/shares`, { headers: { authorization: `Bearer ${secret}` } });
    expect(used.status).toBe(200);
    const row = tab.page.getByTestId('tokens').getByRole('row', { name: /backup script/ });
    await tab.page.reload();
    await heading('Users and tokens').waitFor();
    expect(await tab.page.getByTestId('token-secret').count()).toBe(0);
    expect(await row.getByTestId('last-used').textContent()).not.toBe('never');
    expect(await check(tab.page, '31-tokens')).toEqual([]);
    await tab.page.getByRole('button', { name: 'Revoke backup script' }).click();
    await row.waitFor({ state: 'detached' });
    const after = await fetch(`${s.url}/api/v1/shares`, { headers: { authorization: `Bearer ${secret}` } });
    expect(after.status).toBe(401);
  });

  it('deletes a user only after its name is typed; the administrator cannot be deleted', async () => {
    expect(await tab.page.getByRole('button', { name: 'Delete admin…' }).isDisabled()).toBe(true);
    await tab.page.getByRole('button', { name: 'Delete vic…' }).click();
    const dialog = tab.page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Delete account' });
    await dialog.getByRole('textbox').fill('Vic');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('textbox').fill('vic');
    expect(await check(tab.page, '32-users-delete')).toEqual([]);
    await confirm.click();
    await tab.page.getByTestId('users').getByRole('row', { name: /vic/ }).waitFor({ state: 'detached' });
    const users = (await s.call('GET', '/users')).body.users.map((u: { username: string }) => u.username);
    expect(users).toEqual(['admin']);
    expect(tab.problems, JSON.stringify(tab.problems)).toEqual([]);
  });
});
