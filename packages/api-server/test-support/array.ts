import fs from 'node:fs';
import path from 'node:path';
import type { Sandbox } from './sandbox.ts';

/**
 * Records a one-parity, one-data-disk array in the sandbox database, as array setup would, with
 * its mountpoints as plain directories under the sandbox root (a sandbox outside lab mode treats
 * them as mounted). The share routes only read these rows.
 */
export async function setUpArray(s: Sandbox): Promise<void> {
  const sqlite = s.server.ctx.sqlite;
  sqlite
    .prepare(
      'insert into array_settings (id, create_policy, migration_pending, migration_pending_since, created_at) values (1, ?, 0, null, ?)',
    )
    .run('mfs', new Date().toISOString());
  const insert = sqlite.prepare(
    `insert into array_disks (role, role_index, device, filesystem, fs_uuid, weak_identity, size_bytes, mountpoint)
     values (?, 1, ?, 'xfs', ?, 1, 1073741824, ?)`,
  );
  insert.run('parity', '/dev/loop90', '00000000-0000-4000-8000-000000000010', '/mnt/parity1');
  insert.run('data', '/dev/loop91', '00000000-0000-4000-8000-000000000011', '/mnt/disk1');
  for (const m of ['/mnt/parity1', '/mnt/disk1']) fs.mkdirSync(path.join(s.root, m), { recursive: true });
}
