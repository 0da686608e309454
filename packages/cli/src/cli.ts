#!/usr/bin/env node
import { processIo } from './framework/io.ts';
import { run } from './main.ts';

process.exitCode = await run(process.argv.slice(2), processIo());
