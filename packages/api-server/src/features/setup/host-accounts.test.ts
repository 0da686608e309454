// On a real host (no root prefix) the server creates a Unix and Samba account for each user with a
// password (useradd, smbpasswd) before recording the user. Found while checking docs/install.md:
// the name check that ran again after that useradd saw the account just created and refused every
// first admin (and every new user) as "a system account of this machine", leaving the Unix
// account behind. Here the Samba adapter is a fake that writes the passwd line useradd would.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../test-support/sandbox.ts';

let sbx: Sandbox | null = null;
afterEach(async () => {
  await sbx?.close();
  sbx = null;
});

async function hostSandbox() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'appliance-host-accounts-'));
  const passwd = path.join(root, 'etc', 'passwd');
  fs.mkdirSync(path.dirname(passwd), { recursive: true });
  fs.writeFileSync(
    passwd,
    'root:x:0:0:root:/root:/bin/bash\npostgres:x:101:104::/var/lib/postgresql:/bin/bash\n',
  );
  const created: string[] = [];
  let uid = 2000;
  const sambaAccounts = {
    async setPassword(username: string) {
      const lines = fs.readFileSync(passwd, 'utf8');
      if (!lines.split('\n').some((l) => l.startsWith(`${username}:`)))
        fs.appendFileSync(passwd, `${username}:x:${uid++}:100::/home/${username}:/usr/sbin/nologin\n`);
      created.push(username);
    },
    async remove() {},
  };
  sbx = await startSandbox({ root, hostRoot: root, admin: false, hooks: { sambaAccounts } });
  return { sbx, created };
}

describe('accounts on the host', () => {
  it('creates the first admin and a user whose Unix accounts the server itself just made', async () => {
    const { sbx, created } = await hostSandbox();
    const admin = await sbx.call(
      'POST',
      '/setup/admin',
      { username: 'nasadmin', password: 'correct horse battery' },
      { token: null },
    );
    expect(admin.status, admin.text).toBe(201);
    const login = await sbx.call(
      'POST',
      '/tokens',
      { name: 't', role: 'admin' },
      {
        token: null,
        headers: {
          authorization: `Basic ${Buffer.from('nasadmin:correct horse battery').toString('base64')}`,
        },
      },
    );
    expect(login.status, login.text).toBe(201);
    const token = login.body.token as string;
    const user = await sbx.call(
      'POST',
      '/users',
      { username: 'alice', password: 'alice password' },
      { token },
    );
    expect(user.status, user.text).toBe(201);
    expect(created).toEqual(['nasadmin', 'alice']);
  });

  it('still refuses a name of an account the host already had, before creating anything', async () => {
    const { sbx, created } = await hostSandbox();
    const r = await sbx.call(
      'POST',
      '/setup/admin',
      { username: 'postgres', password: 'correct horse battery' },
      { token: null },
    );
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('username_unavailable');
    expect(created).toEqual([]);
  });
});
