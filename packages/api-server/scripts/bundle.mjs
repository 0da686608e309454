#!/usr/bin/env node
// The service as installations start it: `dist/launcher.js` and everything it imports statically,
// bundled by esbuild into `dist/service/` (run by `pnpm build` after tsc; `bin/appliance-server`
// starts `dist/service/launcher.js` when it exists). Why (docs/decisions/performance.md, "Start-up"):
// resolving and compiling ~400 ESM files cost more than half of a cold start and ~13 MiB of resident
// memory; one bundle does the same work in a few files.
//
// It changes where code runs from, never what it does:
// - every `import()` stays lazy: it becomes a chunk loaded on first use (splitting), so a feature's
//   heavy module still loads only when a request needs it (packages/api-server/FEATURES.md);
// - `import.meta.url`, `import.meta.dirname` and `import.meta.filename` in a workspace file are
//   rewritten to that file's own location in `dist/` (found relative to the bundle, so an installed
//   tree works as the workspace does): files read next to the code (migrations, the template
//   catalog, the native addon, worker scripts) and packages a module `createRequire`s on first use
//   resolve exactly as in the unbundled `dist/`;
// - better-sqlite3 stays outside (a native addon that finds itself through its own path);
// - `node:http` and `node:util` come from `process.getBuiltinModule()`, not through their ES module
//   facades, which read every export (below).
//
// It writes `dist/service/start.json`: the files the service loads at start (the entry and what it
// imports statically) and how many bytes of each package they hold, which the cold-start benchmark
// prints (tools/bench/api/run.ts), so that a heavy module moving onto the start path shows.
//
//   node scripts/bundle.mjs [--metafile FILE]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

const pkgDir = path.resolve(import.meta.dirname, '..');
const packagesDir = path.dirname(pkgDir);
const outdir = path.join(pkgDir, 'dist', 'service');
const entry = path.join(pkgDir, 'dist', 'launcher.js');
const { values } = parseArgs({ options: { metafile: { type: 'string' } } });

/** `import.meta.*` of a workspace file, rewritten to that file's location (see above). */
const ownLocation = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, async (args) => {
      const file = fs.realpathSync(args.path);
      if (!file.startsWith(`${packagesDir}/`) || file.includes('/node_modules/')) return undefined;
      let contents = await fs.promises.readFile(file, 'utf8');
      if (contents.includes('import.meta.')) {
        const rel = JSON.stringify(path.relative(outdir, file).split(path.sep).join('/'));
        contents = contents
          .replaceAll('import.meta.url', `__ownUrl(${rel}, import.meta.url)`)
          .replaceAll('import.meta.filename', `__ownPath(${rel}, import.meta.url)`)
          .replaceAll('import.meta.dirname', `__ownDir(${rel}, import.meta.url)`);
      }
      return { contents, loader: 'js', resolveDir: path.dirname(file) };
    });
  },
};

/**
 * `node:http` and `node:util` without their ES module facades. Importing a builtin from an ES module
 * reads every export: `http.WebSocket` (with `CloseEvent` and `MessageEvent`) is a getter that loads
 * undici, and `util`'s exports load node:worker_threads and the diff module; together about 6 MiB
 * of the idle service, which never uses them (docs/decisions/performance.md, "The web globals").
 * Since issue 33 @hono/node-server loads undici (and with it node:worker_threads) at start anyway,
 * so what this still saves is what the other facades would read; it was not measured apart. The bundle takes these modules from `process.getBuiltinModule()` instead, with the same default
 * and named exports (getters left out of the named ones: they stay on the default export).
 */
const WITHOUT_FACADE = ['http', 'util', 'crypto', 'fs', 'net', 'buffer', 'dns'];

/**
 * A builtin's exports, asked of a fresh Node process (where nothing is loaded yet): `eager` ones cost
 * nothing to read (not a getter, not a lazy property that loads a module when read, as `util.diff`);
 * `lazy` ones are plain functions that do (`util.parseArgs`), exported as wrappers that read them on
 * first call. Anything else (a lazy class, `http.WebSocket`) is on the default export only; a named
 * import of it fails the build.
 */
function builtinExports(name) {
  const probe = `
    const mod = process.getBuiltinModule('node:${name}');
    const eager = [], lazy = [];
    for (const key of Object.keys(mod)) {
      if (!/^[A-Za-z_$][\\w$]*$/.test(key)) continue;
      const before = process.moduleLoadList.length;
      const d = Object.getOwnPropertyDescriptor(mod, key);
      if ('value' in d && process.moduleLoadList.length === before) { eager.push(key); continue; }
      const v = mod[key];
      if (typeof v === 'function' && !/^class\\b/.test(Function.prototype.toString.call(v)) && !v.prototype) lazy.push(key);
    }
    process.stdout.write(JSON.stringify({ eager, lazy }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }));
}

const builtinsWithoutFacade = {
  name: 'builtins-without-facade',
  setup(build) {
    const filter = new RegExp(`^(node:)?(${WITHOUT_FACADE.join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path.replace(/^node:/, ''), namespace: 'builtin' }));
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const { eager, lazy } = builtinExports(args.path);
      return {
        contents: [
          `const mod = process.getBuiltinModule('node:${args.path}');`,
          'export default mod;',
          `export const { ${eager.join(', ')} } = mod;`,
          ...lazy.map((k) => `export function ${k}(...args) { return mod.${k}(...args); }`),
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

const banner = [
  // CommonJS code inside the bundle may `require` a module left outside it (better-sqlite3).
  "import { createRequire as __createRequire } from 'node:module';",
  "import { dirname as __dirnameOf } from 'node:path';",
  "import { fileURLToPath as __fileURLToPath } from 'node:url';",
  'const require = __createRequire(import.meta.url);',
  'const __ownUrl = (rel, base) => new URL(rel, base).href;',
  'const __ownPath = (rel, base) => __fileURLToPath(new URL(rel, base));',
  'const __ownDir = (rel, base) => __dirnameOf(__ownPath(rel, base));',
].join('\n');

fs.rmSync(outdir, { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints: [entry],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  external: ['better-sqlite3'],
  // Smaller sources are smaller strings on the heap; names stay readable in stack traces, and the
  // linked source maps (`APPLIANCE_NODE_FLAGS=--enable-source-maps`) point back to the TypeScript.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: false,
  sourcemap: 'linked',
  banner: { js: banner },
  plugins: [ownLocation, builtinsWithoutFacade],
  metafile: true,
  logLevel: 'warning',
});
if (values.metafile) fs.writeFileSync(values.metafile, JSON.stringify(result.metafile));
fs.writeFileSync(
  path.join(outdir, 'start.json'),
  `${JSON.stringify(startSummary(result.metafile), null, 1)}\n`,
);

/** The output files loaded at start (static imports from the entry) and their bytes per package. */
function startSummary(metafile) {
  const outputs = metafile.outputs;
  const entryFile = Object.keys(outputs).find(
    (o) => outputs[o].entryPoint !== undefined && o.endsWith('/launcher.js'),
  );
  const atStart = new Set();
  for (const pending = [entryFile]; pending.length > 0; ) {
    const file = pending.pop();
    if (atStart.has(file)) continue;
    atStart.add(file);
    for (const i of outputs[file].imports)
      if (i.kind === 'import-statement' && outputs[i.path]) pending.push(i.path);
  }
  const packageOf = (input) =>
    /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ??
    `@appliance/${/(?:^|\/)packages\/([^/]+)\//.exec(path.resolve(input))?.[1] ?? /\.\.\/([^/]+)\/dist\//.exec(input)?.[1] ?? 'api-server'}`;
  const tally = (files) => {
    const packages = {};
    for (const f of files)
      for (const [input, { bytesInOutput }] of Object.entries(outputs[f].inputs))
        packages[packageOf(input)] = (packages[packageOf(input)] ?? 0) + bytesInOutput;
    return Object.fromEntries(Object.entries(packages).sort((a, b) => b[1] - a[1]));
  };
  const lazy = Object.keys(outputs).filter((o) => !o.endsWith('.map') && !atStart.has(o));
  const bytes = (files) => files.reduce((n, f) => n + outputs[f].bytes, 0);
  return {
    atStart: {
      files: [...atStart].map((f) => path.basename(f)),
      bytes: bytes([...atStart]),
      packages: tally(atStart),
    },
    onFirstUse: { files: lazy.length, bytes: bytes(lazy), packages: tally(lazy) },
  };
}
