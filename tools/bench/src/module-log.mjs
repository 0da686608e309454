// Preloaded into the service by the cold-start benchmark (`--import`): records every module file
// the process loads (ESM and CommonJS, bundle chunks and node_modules alike) with its size, and
// writes the list as JSON to BENCH_MODULE_LOG when the process exits. Plain JavaScript, so that
// measuring does not load Node's type stripping into the measured process.
import fs from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.BENCH_MODULE_LOG;
const loaded = [];
if (out) {
  registerHooks({
    load(url, context, next) {
      const result = next(url, context);
      if (url.startsWith('file:')) loaded.push([url, result.source ? result.source.length : 0]);
      return result;
    },
  });
  process.on('exit', () => fs.writeFileSync(out, JSON.stringify(loaded)));
}
