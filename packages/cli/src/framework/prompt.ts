import readline from 'node:readline';
import type { Io } from './io.ts';

/**
 * Reads one line from the terminal. `hidden` turns echo off (passwords). Ctrl-C or Ctrl-D resolve
 * with null.
 */
export function ask(io: Io, question: string, hidden = false): Promise<string | null> {
  return new Promise((resolve) => {
    const stdin = io.stdin as NodeJS.ReadStream;
    if (hidden) {
      // echo off before the prompt shows: what is typed after it is never echoed
      stdin.setRawMode?.(true);
      stdin.resume();
      io.stderr.write(question);
      let value = '';
      const done = (result: string | null) => {
        stdin.setRawMode?.(false);
        stdin.pause();
        stdin.off('data', onData);
        io.stderr.write('\n');
        resolve(result);
      };
      const onData = (buf: Buffer) => {
        for (const ch of buf.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return done(value);
          if (ch === '\u0003' || ch === '\u0004') return done(null);
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
      };
      stdin.on('data', onData);
      return;
    }
    const rl = readline.createInterface({ input: stdin, output: io.stderr, terminal: true });
    let answered = false;
    rl.on('SIGINT', () => rl.close());
    rl.on('close', () => {
      if (!answered) {
        io.stderr.write('\n');
        resolve(null);
      }
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(answer);
    });
  });
}
