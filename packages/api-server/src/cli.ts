#!/usr/bin/env node
import { cliCommands } from './features/cli-commands.ts';
import { main } from './cli/main.ts';

const code = await main(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env },
  cliCommands,
);
process.exitCode = code;
