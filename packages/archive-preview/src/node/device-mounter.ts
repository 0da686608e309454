/**
 * The import's `Mounter` over the host tools (08 §14): `mount <device> <mountpoint>`, then
 * findmnt checks that the filesystem there is the recorded one (by UUID); `umount` undoes it.
 */
import type { CommandRunner } from '@appliance/common';
import type { Mounter } from './import.ts';

export function deviceMounter(runner: CommandRunner): Mounter {
  return {
    async mount(op, real) {
      const r = await runner.run('mount', [op.device, real], { timeoutMs: 60_000 });
      if (r.exitCode !== 0) throw new Error(`mount ${op.device} ${real}: ${r.stderr.trim()}`);
      const uuid = await runner.run('findmnt', ['-n', '-r', '-o', 'UUID', '--mountpoint', real], {
        timeoutMs: 10_000,
      });
      const found = uuid.stdout.trim().split('\n').at(-1) ?? '';
      if (op.fsUuid !== '' && found !== op.fsUuid)
        throw new Error(`${real} holds filesystem ${found || 'none'}, not ${op.fsUuid}`);
    },
    async unmount(real) {
      await runner.run('umount', [real], { timeoutMs: 60_000 });
    },
  };
}
