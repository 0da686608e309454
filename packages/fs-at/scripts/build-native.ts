// Builds the Node-API addon (native/fs_at.c, native/binding.gyp) with node-gyp against the running Node's headers and
// puts it at dist/fs_at.node (the build's turbo output). Offline: the headers come from
// npm_config_nodedir (tools/provision.sh sets it) or from the Node installation itself
// (<prefix>/include/node); node-gyp is the one pnpm runs scripts with (npm_config_node_gyp or the
// node-gyp on PATH). APPLIANCE_FS_AT_SKIP=1 skips the addon: the deleter then uses its pure-JS walker.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const out = path.join(pkg, 'dist', 'fs_at.node');

if (process.env['APPLIANCE_FS_AT_SKIP'] === '1') {
  fs.rmSync(out, { force: true });
  console.log('fs-at: APPLIANCE_FS_AT_SKIP=1, native addon not built (the pure-JS walker is used)');
  process.exit(0);
}

function nodeDir(): string | undefined {
  const fromEnv = process.env['npm_config_nodedir'];
  if (fromEnv) return fromEnv;
  const prefix = path.dirname(path.dirname(process.execPath));
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? prefix : undefined;
}

function nodeGyp(): { cmd: string; args: string[] } {
  const configured = process.env['npm_config_node_gyp'];
  if (configured) {
    return configured.endsWith('.js')
      ? { cmd: process.execPath, args: [configured] }
      : { cmd: configured, args: [] };
  }
  return { cmd: 'node-gyp', args: [] };
}

const dir = nodeDir();
const gyp = nodeGyp();
// binding.gyp lives in native/, not at the package root, so pnpm install does not run node-gyp itself
const native = path.join(pkg, 'native');
const args = [...gyp.args, 'rebuild', '--loglevel=warn', ...(dir ? [`--nodedir=${dir}`] : [])];
const run = spawnSync(gyp.cmd, args, { cwd: native, stdio: 'inherit' });
if (run.error || run.status !== 0) {
  console.error(
    `fs-at: node-gyp failed (${run.error?.message ?? `exit ${run.status}`}); a C compiler, make and python3 are needed, or set APPLIANCE_FS_AT_SKIP=1`,
  );
  process.exit(1);
}
fs.mkdirSync(path.dirname(out), { recursive: true });
// a new file renamed into place: a running process keeps its mapping of the old one intact
const temp = `${out}.${process.pid}.tmp`;
fs.copyFileSync(path.join(native, 'build', 'Release', 'fs_at.node'), temp);
fs.renameSync(temp, out);
console.log(`fs-at: built ${path.relative(process.cwd(), out)}`);
