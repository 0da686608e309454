import type { Io } from './main.ts';

/** Reads one line from the terminal without echo. */
export function readPassword(prompt: string, io: Io): Promise<string> {
  return new Promise((resolve) => {
    const stdin = io.stdin as NodeJS.ReadStream;
    // Echo goes off before the prompt shows: what is typed ahead of the prompt is not echoed either.
    stdin.setRawMode?.(true);
    io.stderr.write(prompt);
    stdin.resume();
    let value = '';
    const onData = (buf: Buffer) => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          stdin.setRawMode?.(false);
          stdin.pause();
          stdin.off('data', onData);
          io.stderr.write('\n');
          resolve(value);
          return;
        }
        if (ch === '\u0003') process.exit(130);
        if (ch === '\u007f') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
