import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Register } from '../../framework/command.ts';
import { Refusal, UsageError } from '../../framework/exit.ts';
import { fields, iec, relative, table } from '../../framework/format.ts';
import { readStdin } from '../../framework/lookup.ts';
import { byteProgress } from '../../framework/progress.ts';
import { registerImport } from './import.ts';

/** Writes the stream to `target` atomically: a temp file beside it (0600), fsync, rename, fsync dir. */
async function writeAtomically(
  stream: NodeJS.ReadableStream,
  target: string,
  count: Transform,
): Promise<void> {
  const tmp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    await pipeline(stream, count, fs.createWriteStream(tmp, { flags: 'wx', mode: 0o600 }));
    const fd = fs.openSync(tmp, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
    const dir = fs.openSync(path.dirname(target), 'r');
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** `appliance config export|preview|import` (01, 08 §14). */
export const register: Register = (_root, app) => {
  const config = app.group('config', 'Configuration archives');
  config
    .command('export')
    .description('write a config archive (.tar.zst) of this installation, mode 0600')
    .option(
      '-o, --output <path>',
      'where to write it; "-" for standard output (default: the server\'s file name here)',
    )
    .option('--force', 'replace an existing file')
    .action(
      app.action<{ output?: string; force?: boolean }>(async (ctx, o) => {
        const toStdout = o.output === '-';
        if (toStdout && ctx.io.stdout.isTTY)
          throw new UsageError(
            'the archive is binary: redirect standard output to a file, or give --output PATH',
          );
        let target = o.output && !toStdout ? path.resolve(o.output) : null;
        if (target && !o.force && fs.existsSync(target))
          throw new UsageError(`${target} exists; choose another path or pass --force to replace it`);
        const archive = await ctx.client.download('post', '/config/export');
        if (!toStdout && !target) {
          target = path.resolve(archive.filename ?? 'appliance-config.tar.zst');
          if (!o.force && fs.existsSync(target)) {
            archive.stream.destroy();
            throw new UsageError(`${target} exists; choose another path with --output or pass --force`);
          }
        }
        const progress = byteProgress(ctx, 'exporting');
        const count = progress.counter;
        try {
          if (target) await writeAtomically(archive.stream, target, count);
          else await pipeline(archive.stream, count, ctx.io.stdout, { end: false });
          if (!archive.stream.complete) throw new Error('the archive stream was cut off');
        } catch (err) {
          progress.done();
          throw new Refusal(
            'export_failed',
            `The export stopped part-way (${(err as Error).message}); nothing was kept. Check the service log and try again.`,
          );
        }
        progress.done();
        const bytes = progress.bytes();
        if (target) {
          if (ctx.json) ctx.out({ path: target, bytes }, () => '');
          ctx.note(`Wrote ${target} (${iec(bytes)}).`);
        }
      }),
    );
  config
    .command('preview')
    .description('what importing an archive would refuse, add, change and remove (writes nothing)')
    .argument('<archive>', 'a .tar.zst config archive')
    .option(
      '--passphrase-stdin',
      "read the archive's backup passphrase from standard input (opens its secrets)",
    )
    .action(
      app.action<{ passphraseStdin?: boolean }>(async (ctx, o, [file]) => {
        if (!fs.existsSync(file!)) throw new UsageError(`no such file: ${file}`);
        const passphrase = o.passphraseStdin ? await readStdin(ctx) : undefined;
        const p = await ctx.client.upload('/config/import/preview', [
          { name: 'archive', file: file! },
          ...(passphrase !== undefined ? [{ name: 'passphrase', value: passphrase }] : []),
        ]);
        ctx.out(p, () => {
          const changes = p.groups.flatMap((g) => [
            ...g.added.map((x) => [g.category, '+ add', `${x.kind} ${x.name}`]),
            ...g.changed.map((x) => [g.category, '~ change', `${x.kind} ${x.name}`]),
            ...g.removed.map((x) => [g.category, '- remove', `${x.kind} ${x.name}`]),
          ]);
          return (
            fields([
              [
                'archive of',
                `${p.archive.hostname}, ${relative(p.archive.createdAt)} (app ${p.archive.appVersion})`,
              ],
              [
                'schema',
                p.archive.schemaVersion === p.liveSchemaVersion
                  ? 'same as this box'
                  : `${p.archive.schemaVersion} (this box: ${p.liveSchemaVersion})`,
              ],
              ['secrets', p.secrets.status],
            ]) +
            (p.blockers.length
              ? `Blockers (the import would be refused):\n${p.blockers.map((b) => `  ${b.code}: ${b.message}\n`).join('')}`
              : '') +
            (changes.length ? table(['category', 'change', 'item'], changes) : 'No changes.\n') +
            p.notes.map((n) => `note: ${n.message}\n`).join('')
          );
        });
      }),
    );
  registerImport(config, app);
};
