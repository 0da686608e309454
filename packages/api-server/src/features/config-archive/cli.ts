/**
 * `appliance config export --output <path|-> [--force]` (01 §2): asks the service over the Unix
 * socket for an archive and writes the same bytes. A file is written atomically (temp file in the
 * same directory, fsync, rename), mode 0600; `-` means stdout.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { fsyncDir } from '@appliance/common';
import { type CliCommand, EXIT, UsageError } from '../../cli/main.ts';
import { type SocketResponse, socketRequest } from '../../cli/socket-client.ts';

export const HELP = `appliance config export --output PATH|- [--force] [--socket PATH]
  Writes a config archive (.tar.zst) of this installation: to PATH atomically with mode 0600
  (an existing file is replaced only with --force), or to standard output with "-".`;

function reportError(res: SocketResponse, stderr: NodeJS.WritableStream): number {
  let code = 'error';
  let message = `HTTP ${res.status}`;
  try {
    const body = res.json() as { code?: string; message?: string };
    code = body.code ?? code;
    message = body.message ?? message;
  } catch {
    // not JSON
  }
  stderr.write(`${code}: ${message}\n`);
  return EXIT.apiError;
}

async function toFile(res: http.IncomingMessage, target: string): Promise<void> {
  const tmp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const out = fs.createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
  try {
    await pipeline(res, out);
    if (!res.complete) throw new Error('the archive stream was cut off');
    const fd = fs.openSync(tmp, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, target);
    await fsyncDir(path.dirname(target));
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

export const cliCommand: CliCommand = {
  words: ['config', 'export'],
  help: HELP,
  async run(args, io, socket) {
    let values: { output?: string | undefined; force?: boolean | undefined };
    try {
      values = parseArgs({
        args,
        options: {
          output: { type: 'string', short: 'o' },
          force: { type: 'boolean' },
          socket: { type: 'string' },
        },
        allowPositionals: false,
        strict: true,
      }).values;
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const output = values.output;
    if (!output)
      throw new UsageError('config export needs --output PATH (or --output - for standard output)');
    const target = output === '-' ? null : path.resolve(output);
    if (target && !values.force && fs.existsSync(target)) {
      throw new UsageError(`${target} exists; choose another path or pass --force to replace it`);
    }
    let failure: unknown = null;
    const res = await socketRequest(socket, 'POST', '/config/export', undefined, async (stream) => {
      try {
        if (target) await toFile(stream, target);
        else {
          await pipeline(stream, io.stdout, { end: false });
          if (!stream.complete) throw new Error('the archive stream was cut off');
        }
      } catch (err) {
        failure = err;
      }
    });
    if (res.status >= 300) return reportError(res, io.stderr);
    if (failure) {
      io.stderr.write(
        `export_failed: The export stopped part-way (${(failure as Error).message}); nothing was kept. Check the service log and try again.\n`,
      );
      return EXIT.apiError;
    }
    if (target) io.stderr.write(`Wrote ${target}\n`);
    return EXIT.ok;
  },
};
