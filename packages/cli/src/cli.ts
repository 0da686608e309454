#!/usr/bin/env node
import { processIo } from './framework/io.ts';
import { run } from './main.ts';

// A reader that stops early (`appliance --help | head`) closes the pipe: stop quietly, as Unix
// tools do, instead of crashing on the unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await run(process.argv.slice(2), processIo());
