/** Structured JSON logs, one line per record, on stdout. Never pass a secret or a token here. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Writes to stdout once per event-loop turn (one syscall for all the lines of a busy turn). */
export function bufferedStdout(): (line: string) => void {
  let pending = '';
  const flush = () => {
    const out = pending;
    pending = '';
    process.stdout.write(out);
  };
  process.once('exit', () => {
    if (pending) process.stdout.write(pending);
  });
  return (line) => {
    if (pending === '') setImmediate(flush);
    pending += line;
  };
}

export function createLogger(
  write: (line: string) => void = bufferedStdout(),
  level: 'info' | 'warn' | 'error' | 'silent' = 'info',
): Logger {
  const order = { info: 0, warn: 1, error: 2, silent: 3 } as const;
  const emit = (lvl: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })}\n`);
  };
  return {
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
