/**
 * `appliance config import ARCHIVE [--confirm PHRASE] [--passphrase-stdin] [--disk-mapping JSON]`
 * (08 §14) over the Unix socket: a preview first (what would change, the hostname of the typed
 * confirmation, the disks a fresh install maps), then the typed confirmation (asked on a terminal,
 * or `--confirm` for scripts; neither → usage error), then the import with one progress line per
 * step from `GET /events`. The archive is streamed from the file, never held in memory.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { type CliCommand, EXIT, type Io, UsageError } from '../../cli/main.ts';
import { SocketUnavailable } from '../../cli/socket-client.ts';

export const IMPORT_HELP = `appliance config import ARCHIVE [--confirm "RESTORE <hostname>"] [--passphrase-stdin]
                        [--disk-mapping JSON] [--socket PATH]
  Replaces this installation's configuration with the archive's (POST /config/import). Shows the
  preview first, then asks for the typed confirmation on a terminal (scripts pass --confirm). The
  passphrase that opens the archive's secrets is read from standard input with --passphrase-stdin
  (else the configured one is tried). On a fresh install the preview's disk mapping is sent unless
  --disk-mapping gives another ('{"disks":[]}' mounts none).`;

interface Reply {
  status: number;
  json: () => Record<string, unknown>;
}

/** A multipart POST over the socket, the archive part streamed from the file. */
function postArchive(
  socket: string,
  apiPath: string,
  file: string,
  fields: Record<string, string>,
): Promise<Reply> {
  const boundary = `----appliance${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    [
      ...Object.entries(fields).map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
      `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="archive.tar.zst"\r\nContent-Type: application/zstd\r\n\r\n`,
    ].join(''),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = fs.statSync(file).size;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath: socket,
        method: 'POST',
        path: `/api/v1${apiPath}`,
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + size + tail.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: () => JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (['ENOENT', 'ECONNREFUSED', 'EACCES', 'ENOTSOCK', 'EPERM'].includes(err.code ?? ''))
        reject(new SocketUnavailable(`Cannot reach the appliance service at ${socket} (${err.code}).`));
      else if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    req.write(head);
    const stream = fs.createReadStream(file);
    stream.on('error', (err) => req.destroy(err));
    stream.on('end', () => req.end(tail));
    stream.pipe(req, { end: false });
  });
}

/** Follows `GET /events` and prints the import's steps; returns a stop function. */
function followProgress(socket: string, io: Io): () => void {
  let buffer = '';
  const req = http.request({ socketPath: socket, method: 'GET', path: '/api/v1/events' }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (!block.includes('event: progress') || !data) continue;
        const event = JSON.parse(data.slice(6)) as {
          operation: string;
          done: boolean;
          progress: { step?: string; index?: number; total?: number; outcome?: string };
        };
        if (event.operation !== 'config.import') continue;
        const p = event.progress;
        if (!event.done) io.stderr.write(`[${p.index}/${p.total}] ${p.step?.replaceAll('_', ' ')}\n`);
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return () => req.destroy();
}

async function readLine(io: Io, prompt: string): Promise<string> {
  io.stderr.write(prompt);
  const rl = createInterface({ input: io.stdin, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
  }
}

function reportError(res: Reply, io: Io): number {
  let body: Record<string, unknown> = {};
  try {
    body = res.json();
  } catch {
    // not JSON
  }
  io.stderr.write(`${String(body['code'] ?? 'error')}: ${String(body['message'] ?? `HTTP ${res.status}`)}\n`);
  return EXIT.apiError;
}

function summarize(preview: Record<string, unknown>, io: Io): void {
  const archive = preview['archive'] as { hostname: string; createdAt: string; appVersion: string };
  io.stderr.write(
    `Archive of ${archive.hostname}, made ${archive.createdAt} by release ${archive.appVersion}.\n`,
  );
  for (const g of (preview['groups'] ?? []) as { category: string; added: []; changed: []; removed: [] }[]) {
    const n = g.added.length + g.changed.length + g.removed.length;
    if (n > 0)
      io.stderr.write(
        `  ${g.category}: ${g.added.length} added, ${g.changed.length} changed, ${g.removed.length} removed\n`,
      );
  }
  const secrets = preview['secrets'] as { status: string; stacks: string[] };
  if (secrets.stacks.length > 0)
    io.stderr.write(`  secrets: ${secrets.status}; .env not restored for ${secrets.stacks.join(', ')}\n`);
  for (const n of (preview['notes'] ?? []) as { message: string }[])
    io.stderr.write(`  note: ${n.message}\n`);
  for (const b of (preview['blockers'] ?? []) as { code: string; message: string }[])
    io.stderr.write(`  refused: ${b.code}: ${b.message}\n`);
}

export const importCliCommand: CliCommand = {
  words: ['config', 'import'],
  help: IMPORT_HELP,
  async run(args, io, socket) {
    let parsed: ReturnType<typeof parse>;
    const parse = () =>
      parseArgs({
        args,
        options: {
          confirm: { type: 'string' },
          'passphrase-stdin': { type: 'boolean' },
          'disk-mapping': { type: 'string' },
          socket: { type: 'string' },
        },
        allowPositionals: true,
        strict: true,
      });
    try {
      parsed = parse();
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { values, positionals } = parsed;
    if (positionals.length !== 1) throw new UsageError('config import needs exactly one ARCHIVE file');
    const file = positionals[0] as string;
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new UsageError(`${file} is not a file`);
    const interactive = io.stdin.isTTY === true;
    if (values.confirm === undefined && !interactive) {
      throw new UsageError(
        'no terminal to ask for the confirmation: pass --confirm "RESTORE <hostname>" (the archive\'s hostname)',
      );
    }
    if (values['passphrase-stdin'] && values.confirm === undefined) {
      throw new UsageError('--passphrase-stdin reads standard input: pass --confirm as well');
    }
    const fields: Record<string, string> = {};
    if (values['passphrase-stdin']) {
      const line = await readLine(io, '');
      if (line !== '') fields['passphrase'] = line;
    }

    const preview = await postArchive(socket, '/config/import/preview', file, fields);
    if (preview.status !== 200) return reportError(preview, io);
    const body = preview.json();
    summarize(body, io);
    const hostname = (body['archive'] as { hostname: string }).hostname;

    let confirmation = values.confirm;
    if (confirmation === undefined) {
      confirmation = await readLine(
        io,
        `This replaces the whole configuration of this box. Type "RESTORE ${hostname}" to continue: `,
      );
    }
    const importFields: Record<string, string> = { ...fields, confirmation };
    const bareMetal = body['bareMetal'] as { diskMapping: unknown } | undefined;
    if (values['disk-mapping'] !== undefined) importFields['diskMapping'] = values['disk-mapping'];
    else if (bareMetal) importFields['diskMapping'] = JSON.stringify(bareMetal.diskMapping);

    const stop = followProgress(socket, io);
    let res: Reply;
    try {
      // Let the event stream connect before the first step is published.
      await new Promise((r) => setTimeout(r, 100));
      res = await postArchive(socket, '/config/import', file, importFields);
    } finally {
      stop();
    }
    if (res.status !== 200) return reportError(res, io);
    const result = res.json();
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    io.stderr.write(
      `Restored. The configuration before the import is in ${String(result['preImportArchive'])}.\n`,
    );
    return EXIT.ok;
  },
};
