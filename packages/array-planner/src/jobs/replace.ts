/**
 * `disk.replace` (issue 21, 03 §11): a missing or failing data disk rebuilt from parity onto a new
 * one (format → rebuild → check → permissions → switch → sync), or a parity level rebuilt in place
 * (format → rebuild → check → switch).
 */
import { JobBlocked } from '@appliance/jobs';
import { metadataFiles, restoreMetadata } from '../node/metadata.ts';
import { setBranchMode } from '../node/pool-control.ts';
import type { DiskJobResult } from './definitions.ts';
import type { DiskJobRun } from './run.ts';

export async function replaceData(run: DiskJobRun): Promise<DiskJobResult> {
  const { ports, p } = run;
  const { runner, paths } = ports;
  const lastDiff = ports.parity.lastDiff();
  await setBranchMode(runner, paths, p.mountpoint, 'RO');
  await run.format(p.mountpoint);
  const rebuilt = await run.rebuild(paths.snapraidConf);
  const verify = await run.check(paths.snapraidConf, { disk: run.dataName }, rebuilt.findings.unrecoverable);

  await run.enter('permissions');
  const permissions = await restoreMetadata(runner, {
    dir: paths.real(p.mountpoint),
    files: metadataFiles(paths, run.dataName),
  });

  await run.enter('switch');
  await run.commit();
  await setBranchMode(runner, paths, p.mountpoint, 'RW');

  const prefix = `${run.dataName}/`;
  const notInParity = lastDiff?.changes
    ? [...lastDiff.paths.added, ...lastDiff.paths.updated].filter((x) => x.startsWith(prefix))
    : null;
  const found = {
    restoredFiles: rebuilt.findings.recovered.length,
    unrecoverable: rebuilt.findings.unrecoverable,
    changedSinceLastSync: notInParity,
    checked: { errors: verify.dataErrors + verify.ioErrors + verify.fileErrors },
    permissions: {
      restored: permissions.saved,
      missing: permissions.missing,
      errors: permissions.errors.slice(0, 20),
    },
  };
  let sync: unknown;
  try {
    sync = await run.syncAfter();
  } catch (err) {
    if (err instanceof JobBlocked)
      throw new JobBlocked(
        {
          ...err.error,
          message: `${p.mountpoint} is on ${run.device} now (${found.restoredFiles} files rebuilt${found.unrecoverable.length ? `, ${found.unrecoverable.length} could not be` : ''}); the sync afterwards was blocked: ${err.error.message}`,
        },
        run.result({ ...found, sync: err.result }),
      );
    throw err;
  }
  return run.result({
    ...found,
    sync,
    message: `${p.mountpoint} is on ${run.device} now: ${found.restoredFiles} files rebuilt from parity${found.unrecoverable.length ? `, ${found.unrecoverable.length} could not be (listed in unrecoverable)` : ''}. Files added after the last sync could not come back${notInParity?.length ? ` (known: ${notInParity.length}, listed in changedSinceLastSync)` : ''}.`,
  });
}

export async function replaceParity(run: DiskJobRun): Promise<DiskJobResult> {
  const { ports, p } = run;
  await run.format(p.mountpoint);
  const rebuilt = await run.rebuild(ports.paths.snapraidConf);
  await run.check(ports.paths.snapraidConf, {});
  await run.enter('switch');
  await run.commit();
  return run.result({
    rebuilt: { bytes: rebuilt.bytes },
    message: `The parity of level ${p.roleIndex} is rebuilt on ${run.device} at ${p.mountpoint}.`,
  });
}
