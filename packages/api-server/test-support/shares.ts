/** Fixtures of the shares system tests (an array in the sandbox, accounts, raw requests). */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Sandbox } from './sandbox.ts';

/**
 * Records an array in the sandbox database (as array setup would) and creates its mountpoint
 * directories under the sandbox root. The share features only read these rows.
 */
export function seedArray(s: Sandbox, options: { dataDisks?: number; cache?: boolean } = {}): void {
  const sqlite = s.server.ctx.sqlite;
  const now = new Date().toISOString();
  sqlite.prepare('delete from array_disks').run();
  sqlite.prepare('delete from array_settings').run();
  sqlite
    .prepare(
      'insert into array_settings (id, create_policy, migration_pending, migration_pending_since, created_at) values (1, ?, 0, null, ?)',
    )
    .run('mfs', now);
  const insert = sqlite.prepare(
    `insert into array_disks (role, role_index, device, filesystem, fs_uuid, weak_identity, size_bytes, mountpoint)
     values (?, ?, ?, 'xfs', ?, 1, 1073741824, ?)`,
  );
  const slots: Array<[string, number, string]> = [['parity', 1, '/mnt/parity1']];
  for (let i = 1; i <= (options.dataDisks ?? 2); i++) slots.push(['data', i, `/mnt/disk${i}`]);
  if (options.cache) slots.push(['cache', 1, '/mnt/cache']);
  slots.forEach(([role, index, mountpoint], n) => {
    insert.run(role, index, `/dev/loop${90 + n}`, `00000000-0000-4000-8000-0000000000${10 + n}`, mountpoint);
    fs.mkdirSync(path.join(s.root, mountpoint), { recursive: true });
  });
}

export function setMigrationPending(s: Sandbox, pending: boolean): void {
  s.server.ctx.sqlite
    .prepare('update array_settings set migration_pending = ? where id = 1')
    .run(pending ? 1 : 0);
}

export async function createUser(
  s: Sandbox,
  username: string,
  role = 'share-only',
  password?: string,
): Promise<string> {
  const r = await s.call<{ id: string }>('POST', '/users', {
    username,
    role,
    ...(password ? { password } : {}),
  });
  if (r.status !== 201) throw new Error(`creating user ${username}: ${r.status} ${r.text}`);
  return r.body.id;
}

export async function createGroup(s: Sandbox, name: string, userIds: string[]): Promise<string> {
  const g = await s.call<{ id: string }>('POST', '/user-groups', { name });
  if (g.status !== 201) throw new Error(`creating group ${name}: ${g.status} ${g.text}`);
  const m = await s.call('PUT', `/user-groups/${g.body.id}/members`, { userIds });
  if (m.status !== 200) throw new Error(`group members: ${m.status} ${m.text}`);
  return g.body.id;
}

export async function createShare(
  s: Sandbox,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const r = await s.call('POST', '/shares', { name, ...extra });
  if (r.status !== 201) throw new Error(`creating share ${name}: ${r.status} ${r.text}`);
}

/** A viewer account with a viewer token. */
export async function viewerToken(s: Sandbox, username: string): Promise<string> {
  const password = 'viewer password 1';
  await createUser(s, username, 'viewer', password);
  const basic = Buffer.from(`${username}:${password}`).toString('base64');
  const t = await s.call<{ token: string }>(
    'POST',
    '/tokens',
    { name: 'viewer', role: 'viewer' },
    { token: null, headers: { authorization: `Basic ${basic}` } },
  );
  if (t.status !== 201) throw new Error(`viewer token: ${t.status} ${t.text}`);
  return t.body.token;
}

export const smbConfPath = (s: Sandbox): string => path.join(s.root, 'etc/appliance/samba/smb.conf');
export const readSmbConf = (s: Sandbox): string => fs.readFileSync(smbConfPath(s), 'utf8');

/** One section of smb.conf (from its header to the next blank line). */
export function smbSection(text: string, share: string): string | null {
  const start = text.indexOf(`\n[${share}]\n`);
  if (start < 0) return null;
  const end = text.indexOf('\n\n', start + 1);
  return text.slice(start + 1, end < 0 ? undefined : end + 1);
}

/**
 * A request with the path sent byte for byte (fetch would normalise `..` and percent-escapes).
 */
export function rawRequest(
  s: Sandbox,
  method: string,
  rawPath: string,
  body?: string,
): Promise<{
  status: number;
  body: { code?: string; details?: { issues?: Array<{ path: string }> } } | null;
}> {
  const url = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: rawPath,
        headers: {
          authorization: `Bearer ${s.token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = null;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
