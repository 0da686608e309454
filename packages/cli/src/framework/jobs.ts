/**
 * Following a job (09): its progress events on `GET /events` (operationId = the job's id) drawn as
 * a bar on a terminal or plain lines otherwise (stderr), until the job has ended; the job's own
 * row (`GET /jobs/:id`) is read every few seconds too, so a missed event never leaves the command
 * waiting. Ctrl-C stops watching, not the job, and says how to follow or cancel it.
 */
import type { ResponseOf } from '@appliance/client';
import cliProgress from 'cli-progress';
import type { Ctx } from './context.ts';
import { duration, iec } from './format.ts';
import { Interrupted } from './progress.ts';

export type Job = ResponseOf<'get', '/jobs/{id}'>;

const ENDED = new Set(['succeeded', 'failed', 'cancelled', 'interrupted', 'blocked']);

/** "sync 42% · 1.2 GiB of 2.8 GiB · ETA 3m 10s". */
export function jobLine(
  j: Pick<Job, 'phase' | 'percent' | 'bytesDone' | 'bytesTotal' | 'etaSeconds' | 'state'>,
): string {
  const parts = [j.phase ?? j.state];
  if (j.percent !== null && j.percent !== undefined) parts[0] += ` ${Math.round(j.percent)}%`;
  if (j.bytesDone !== null && j.bytesDone !== undefined)
    parts.push(j.bytesTotal ? `${iec(j.bytesDone)} of ${iec(j.bytesTotal)}` : iec(j.bytesDone));
  if (j.etaSeconds !== null && j.etaSeconds !== undefined && j.etaSeconds > 0)
    parts.push(`ETA ${duration(j.etaSeconds * 1000)}`);
  return parts.join(' · ');
}

export interface FollowSpec {
  /** What the job does, for the lines and the Ctrl-C message ("the parity sync"). */
  what: string;
  /** Starts the job (202 with the job), or null to follow an existing one (`id`). */
  start: (() => Promise<Job>) | null;
  id?: string;
  pollMs?: number;
  /** The progress text (default `jobLine`); gets the job with the extra figures of its events. */
  text?: (j: Job & Record<string, unknown>) => string;
}

/**
 * Starts (or joins) a job and follows it to its end; resolves with the ended job exactly as the API
 * answers it (`GET /jobs/:id`): the figures progress events add (a jobId, files, rate…) are only
 * drawn, never returned, so `--json` prints the API's object.
 */
export async function followJob(ctx: Ctx, spec: FollowSpec): Promise<Job> {
  const { io } = ctx;
  const events = ctx.client.events();
  await events.connected.catch(() => undefined);
  const tty = Boolean(io.stderr.isTTY);
  const started = Date.now();
  let bar: cliProgress.SingleBar | null = null;
  let lastLine = 0;
  let lastText = '';
  const show = (j: Job) => {
    const text = spec.text ? spec.text(j as Job & Record<string, unknown>) : jobLine(j);
    const elapsed = duration(Date.now() - started);
    if (!tty) {
      const now = Date.now();
      if (text === lastText && now - lastLine < 5000 && !ENDED.has(j.state)) return;
      lastText = text;
      lastLine = now;
      io.stderr.write(
        `${j.type} ${j.target}: ${text}, ${elapsed}${ENDED.has(j.state) ? `, ${j.state}` : ''}\n`,
      );
      return;
    }
    bar ??= new cliProgress.SingleBar(
      {
        stream: io.stderr,
        format: '{bar} {percentage}% | {text} | {elapsed}',
        hideCursor: true,
        clearOnComplete: false,
        barsize: 30,
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
    if (!bar.isActive) bar.start(100, 0, { text, elapsed });
    bar.update(Math.round(j.percent ?? 0), { text, elapsed });
  };
  let onSigint: (() => void) | null = null;
  const interrupted = new Promise<never>((_r, reject) => {
    onSigint = () => reject(new Interrupted(spec.what));
    process.once('SIGINT', onSigint);
  });
  let id = spec.id ?? null;
  try {
    let job: Job = spec.start
      ? await Promise.race([spec.start(), interrupted])
      : await ctx.client.get('/jobs/{id}', { params: { id: id! } });
    let row: Job = job;
    id = job.id;
    show(job);
    // the job's own fields; events may add figures of their phase (files, rate…), dropped when it ends
    const own = new Set(Object.keys(job));
    const ownOnly = (j: Job) => Object.fromEntries(Object.entries(j).filter(([k]) => own.has(k))) as Job;
    // live events refine the picture between polls
    void (async () => {
      try {
        for await (const e of events) {
          if (e.type !== 'progress' || e.data.operationId !== id || e.data.done) continue;
          const p = e.data.progress as Partial<Job>;
          job = {
            ...(p.phase !== undefined && p.phase !== job.phase ? ownOnly(job) : job),
            ...p,
            state: job.state,
          };
          show(job);
        }
      } catch {
        // the stream ended: polling goes on
      }
    })();
    while (!ENDED.has(job.state)) {
      await Promise.race([new Promise((r) => setTimeout(r, spec.pollMs ?? 2000)), interrupted]);
      const fresh = await Promise.race([ctx.client.get('/jobs/{id}', { params: { id } }), interrupted]);
      row = fresh;
      // the row has no event-only figures (files, rate…): keep the last ones within the same phase
      job = { ...(fresh.phase === job.phase ? job : {}), ...fresh };
      show(job);
    }
    return row;
  } catch (err) {
    if (err instanceof Interrupted) {
      (bar as cliProgress.SingleBar | null)?.stop();
      bar = null;
      io.stderr.write(
        `\nStopped watching; ${spec.what} goes on in the service.\n` +
          (id
            ? `  Follow it again:  appliance jobs show ${id} --follow\n  Cancel it:        appliance jobs cancel ${id}\n`
            : ''),
      );
    }
    throw err;
  } finally {
    if (onSigint) process.off('SIGINT', onSigint);
    events.close();
    (bar as cliProgress.SingleBar | null)?.stop();
  }
}

/** The `--help` paragraph of a command that starts a job and follows it. */
export function jobHelp(what: string, line: string): string {
  return (
    `\nProgress: ${what}, fed by GET /events and GET /jobs/<id>: a bar on a terminal,\n` +
    `plain lines on stderr otherwise, e.g.\n  ${line}\n` +
    'Ctrl-C stops watching, not the job (exit 130); follow it again with\n' +
    '"appliance jobs show ID --follow", cancel it with "appliance jobs cancel ID".\n' +
    '--no-wait prints the job and returns at once.'
  );
}
