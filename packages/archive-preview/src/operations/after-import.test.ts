import { describe, expect, it } from 'vitest';
import { AFTER_IMPORT_STEPS, type AfterImportPorts, afterImport } from './after-import.ts';

/** Ports that record each step (with the key for `adoptMachineKey`); `failAt` throws there. */
function recordingPorts(failAt?: keyof AfterImportPorts) {
  const calls: string[] = [];
  const step =
    (name: keyof AfterImportPorts) =>
    async (key?: Buffer): Promise<void> => {
      calls.push(key ? `${name}:${key.toString('hex')}` : name);
      if (name === failAt) throw new Error(`${name} failed`);
    };
  const ports = Object.fromEntries(
    AFTER_IMPORT_STEPS.map((name) => [name, step(name)]),
  ) as unknown as AfterImportPorts;
  return { ports, calls };
}

describe('afterImport', () => {
  it('adopts the archive key first, then resets accounts, reloads Samba, records files, reschedules', async () => {
    const { ports, calls } = recordingPorts();
    await afterImport(ports, { adoptedKey: Buffer.from([0xab, 0xcd]) });
    expect(calls).toEqual([
      'adoptMachineKey:abcd',
      'resetAccounts',
      'reloadSamba',
      'recordGeneratedFiles',
      'rescheduleWatchers',
    ]);
  });

  it('keeps the machine key when the import adopted none', async () => {
    const { ports, calls } = recordingPorts();
    await afterImport(ports, { adoptedKey: null });
    expect(calls).toEqual(['resetAccounts', 'reloadSamba', 'recordGeneratedFiles', 'rescheduleWatchers']);
  });

  it('a failing step rejects with its error and the later steps do not run', async () => {
    const { ports, calls } = recordingPorts('reloadSamba');
    await expect(afterImport(ports, { adoptedKey: null })).rejects.toThrow('reloadSamba failed');
    expect(calls).toEqual(['resetAccounts', 'reloadSamba']);
  });

  it('waits for an asynchronous step before the next one', async () => {
    const calls: string[] = [];
    const { ports } = recordingPorts();
    const slow: AfterImportPorts = {
      ...ports,
      resetAccounts: () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            calls.push('resetAccounts');
            resolve();
          }, 5),
        ),
      reloadSamba: () => void calls.push('reloadSamba'),
    };
    await afterImport(slow, { adoptedKey: null });
    expect(calls).toEqual(['resetAccounts', 'reloadSamba']);
  });
});
