/**
 * `appliance config import ARCHIVE` (08 §14): the preview first (a compact summary of what would
 * change), then the typed confirmation `RESTORE <hostname>` (asked on a terminal, `--confirm` for
 * scripts), then `POST /config/import` with one progress step per event of `config.import`
 * (`GET /events` is setup-gated: before setup the import runs unwatched), then the result.
 */
import fs from 'node:fs';
import type { UploadPart } from '@appliance/client';
import type { Command } from 'commander';
import type { App } from '../../framework/command.ts';
import { confirmPhrase } from '../../framework/confirm.ts';
import type { Ctx } from '../../framework/context.ts';
import { Refusal, UsageError } from '../../framework/exit.ts';
import { fields, relative } from '../../framework/format.ts';
import { readStdin } from '../../framework/lookup.ts';
import { progressHelp, watchProgress } from '../../framework/progress.ts';

interface Coded {
  code: string;
  message: string;
}
interface Secrets {
  status: string;
  identity: string;
  stacks: string[];
}
interface Preview {
  archive: { createdAt: string; hostname: string; appVersion: string; schemaVersion: string };
  liveSchemaVersion: string;
  blockers: Coded[];
  groups: { category: string; added: unknown[]; changed: unknown[]; removed: unknown[] }[];
  secrets: Secrets;
  notes: Coded[];
  bareMetal?: {
    schemaUpgrade: boolean;
    disks: { name: string; role: string; roleIndex: number; state: string; device?: string }[];
    diskMapping: { disks: { role: string; roleIndex: number; device: string }[] };
  };
}
interface ImportResult {
  preImportArchive: string;
  schemaUpgrade: boolean;
  secrets: Secrets;
  notes: Coded[];
}

/** The phrase the service expects (08 §14). */
export const restorePhrase = (hostname: string): string => `RESTORE ${hostname}`;

const SECRETS: Record<string, string> = {
  none: 'none in the archive',
  opened: 'opened',
  no_passphrase: 'not opened (no passphrase: pass --passphrase-stdin)',
  passphrase_incorrect: 'not opened (the passphrase is not the one the archive was made with)',
};

/** `--disk-mapping JSON|@file` → the JSON text sent (checked to be JSON here; the service checks its shape). */
export function diskMappingOption(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let json = text;
  if (text.startsWith('@')) {
    const file = text.slice(1);
    if (!fs.existsSync(file)) throw new UsageError(`--disk-mapping: no such file: ${file}`);
    json = fs.readFileSync(file, 'utf8');
  }
  try {
    JSON.parse(json);
  } catch {
    throw new UsageError(
      '--disk-mapping must be JSON like \'{"disks":[{"role":"data","roleIndex":1,"device":"/dev/sdc"}]}\' or @FILE holding it',
    );
  }
  return json.trim();
}

/** The human summary of a preview: the archive, counts per section, secrets, disks, blockers. */
export function summary(p: Preview): string {
  const counts = p.groups
    .filter((g) => g.added.length + g.changed.length + g.removed.length > 0)
    .map(
      (g) =>
        `  ${g.category}: ${g.added.length} added, ${g.changed.length} changed, ${g.removed.length} removed\n`,
    );
  const disks = p.bareMetal?.disks.length
    ? `Disks of the archive's array on this fresh install:\n${p.bareMetal.disks
        .map((d) => `  ${d.role} ${d.roleIndex} (${d.name}): ${d.state}${d.device ? ` → ${d.device}` : ''}\n`)
        .join('')}`
    : '';
  return (
    fields([
      ['archive of', `${p.archive.hostname}, ${relative(p.archive.createdAt)} (app ${p.archive.appVersion})`],
      [
        'schema',
        p.archive.schemaVersion === p.liveSchemaVersion
          ? 'same as this box'
          : `${p.archive.schemaVersion} (this box: ${p.liveSchemaVersion}; upgraded on import)`,
      ],
      [
        'secrets',
        `${SECRETS[p.secrets.status] ?? p.secrets.status}${p.secrets.stacks.length ? `; .env not restored for ${p.secrets.stacks.join(', ')}` : ''}`,
      ],
    ]) +
    (counts.length ? `Changes:\n${counts.join('')}` : 'No changes.\n') +
    disks +
    p.notes.map((n) => `note: ${n.message}\n`).join('') +
    (p.blockers.length
      ? `Blockers (the import is refused):\n${p.blockers.map((b) => `  ${b.code}: ${b.message}\n`).join('')}`
      : '')
  );
}

/** The human rendering of the import's answer, with the warning about accounts and tokens. */
export function resultText(r: ImportResult, hostname: string): string {
  return (
    fields([
      ['restored from', hostname],
      ['previous config', r.preImportArchive],
      ['schema upgrade', r.schemaUpgrade ? 'yes' : 'no'],
      [
        'secrets',
        `${SECRETS[r.secrets.status] ?? r.secrets.status}${r.secrets.stacks.length ? `; .env not restored for ${r.secrets.stacks.join(', ')}` : ''}`,
      ],
    ]) +
    r.notes.map((n) => `note: ${n.message}\n`).join('') +
    "Users, passwords and API tokens are now the archive's: tokens of this box no longer work.\n"
  );
}

async function setupDone(ctx: Ctx): Promise<boolean> {
  try {
    const s = await ctx.client.get('/setup/status');
    return !(s as { setupRequired: boolean }).setupRequired;
  } catch {
    return true;
  }
}

export function registerImport(config: Command, app: App): void {
  config
    .command('import')
    .description("replace this box's configuration with an archive's (preview, typed confirmation, import)")
    .argument('<archive>', 'a .tar.zst config archive')
    .option(
      '--passphrase-stdin',
      "read the archive's backup passphrase from standard input (needs --confirm: stdin is not a terminal then)",
    )
    .option('--confirm <phrase>', 'the typed confirmation for scripts: "RESTORE <hostname of the archive>"')
    .option(
      '--disk-mapping <json|@file>',
      "on a fresh install, which device is which disk of the archive's array (default: the preview's matching)",
    )
    .addHelpText(
      'after',
      progressHelp('the steps of the import', 'config.import nas-a: step 3/5: swap files, 0s'),
    )
    .action(
      app.action<{ passphraseStdin?: boolean; confirm?: string; diskMapping?: string }>(
        async (ctx, o, [file]) => {
          if (!fs.existsSync(file!) || !fs.statSync(file!).isFile())
            throw new UsageError(`no such file: ${file}`);
          if (o.passphraseStdin && o.confirm === undefined)
            throw new UsageError(
              '--passphrase-stdin reads standard input, so the phrase cannot be asked: pass --confirm "RESTORE <hostname>" as well',
            );
          if (o.confirm === undefined && !(ctx.io.stdin.isTTY && ctx.io.stderr.isTTY))
            throw new UsageError(
              'to import an archive without a terminal, pass the confirmation phrase with --confirm "RESTORE <hostname of the archive>" (config preview shows the hostname)',
            );
          const mapping = diskMappingOption(o.diskMapping);
          const passphrase = o.passphraseStdin ? await readStdin(ctx) : undefined;
          const secretParts: UploadPart[] =
            passphrase !== undefined && passphrase !== '' ? [{ name: 'passphrase', value: passphrase }] : [];
          const p = (await ctx.client.upload('/config/import/preview', [
            { name: 'archive', file: file! },
            ...secretParts,
          ])) as Preview;
          const expected = restorePhrase(p.archive.hostname);
          const text = summary(p);
          if (o.confirm !== undefined && !ctx.json) ctx.io.stderr.write(text);
          if (p.blockers.length) {
            const b = p.blockers[0]!;
            if (o.confirm === undefined) ctx.io.stderr.write(text);
            throw new Refusal(b.code, `${b.message} (nothing was changed)`);
          }
          const confirmation = await confirmPhrase(ctx.io, {
            given: o.confirm,
            action: 'import an archive',
            prepare: async () => ({
              expected,
              description: `${text}This replaces the whole configuration of this box with ${p.archive.hostname}'s.`,
            }),
          });
          const diskMapping = mapping ?? (p.bareMetal ? JSON.stringify(p.bareMetal.diskMapping) : undefined);
          const parts: UploadPart[] = [
            ...secretParts,
            { name: 'confirmation', value: confirmation },
            ...(diskMapping !== undefined ? [{ name: 'diskMapping', value: diskMapping }] : []),
            { name: 'archive', file: file! },
          ];
          const start = async () => (await ctx.client.upload('/config/import', parts)) as ImportResult;
          let lastTotal = 0;
          // Before setup GET /events answers 401: the import then runs without a progress display.
          const r = (await setupDone(ctx))
            ? await watchProgress(ctx, {
                operation: 'config.import',
                target: p.archive.hostname,
                what: 'the import',
                start,
                render: (progress) => {
                  const s = progress as { step?: string; index?: number; total?: number; outcome?: string };
                  if (s.outcome !== undefined)
                    return {
                      text: s.outcome === 'ok' ? 'imported' : `failed at ${s.step ?? 'a step'}`,
                      value: lastTotal,
                      total: lastTotal,
                    };
                  lastTotal = s.total ?? lastTotal;
                  return {
                    text: `step ${s.index}/${s.total}: ${String(s.step).replaceAll('_', ' ')}`,
                    value: s.index ?? 0,
                    total: s.total ?? 0,
                  };
                },
              })
            : await start();
          ctx.out(r, () => resultText(r, p.archive.hostname));
        },
      ),
    );
}
