/**
 * The server's shape (issue 33): how much of the service's product code lives in
 * `packages/api-server/src` (routes, schemas, the stores and wiring) against what the operation
 * packages hold, its largest file, and the import circles among its files (madge). Not a timing:
 * counted from the checkout, so it is the same on any host.
 *
 *   node tools/bench/size/run.ts
 *
 * S1: lines of api-server/src without tests and test support: ≤ 9,000 (reference: the lines of
 *     every packages/<operation>/src, without tests, in the same checkout).
 * S2: the largest file of api-server/src without tests: ≤ 400 lines.
 * S3: import circles among api-server/src files (type-only imports included): 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import { figures } from '../src/harness.ts';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const serverSrc = path.join(repo, 'packages/api-server/src');

const isProduct = (file: string) =>
  /\.tsx?$/.test(file) &&
  !/\.test\.tsx?$/.test(file) &&
  !/(^|\/)(test-support|testing|reliability)(\/|\.ts$)|test-fixture\.ts$|test-smbclient\.ts$/.test(file);

function productFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((e) => {
    if (!e.isFile()) return [];
    const file = path.join(e.parentPath, e.name);
    return isProduct(path.relative(dir, file)) ? [file] : [];
  });
}
const linesOf = (file: string) => fs.readFileSync(file, 'utf8').split('\n').length - 1;

const server = productFiles(serverSrc).map((f) => ({ file: path.relative(serverSrc, f), lines: linesOf(f) }));
const serverLines = server.reduce((n, f) => n + f.lines, 0);
const largest = server.reduce((a, b) => (b.lines > a.lines ? b : a));
const others = fs
  .readdirSync(path.join(repo, 'packages'))
  .filter((p) => !['api-server', 'web', 'client', 'cli'].includes(p))
  .map((p) => path.join(repo, 'packages', p, 'src'))
  .filter((d) => fs.existsSync(d));
const packageLines = others.flatMap(productFiles).reduce((n, f) => n + linesOf(f), 0);

const graph = await madge(serverSrc, {
  fileExtensions: ['ts'],
  excludeRegExp: [/\.test\.ts$/, /(^|\/)(testing|reliability|test-support)\//],
  tsConfig: path.join(repo, 'packages/api-server/tsconfig.json'),
  detectiveOptions: { ts: { skipTypeImports: false } },
});
// madge follows imports into other packages' builds; a circle counts here when it is among server files
const circles = graph.circular().filter((c: string[]) => c.every((f) => !f.startsWith('..')));

const share = (100 * serverLines) / (serverLines + packageLines);
const ok = figures("the server's shape (issue 33)", [
  {
    figure: 'S1 api-server/src lines (no tests, no test support)',
    value: `${serverLines} (${share.toFixed(0)} % of server + operation packages)`,
    target: '≤ 9000',
    reference: `${packageLines} in the operation packages`,
    pass: serverLines <= 9000,
  },
  {
    figure: 'S2 largest api-server/src file',
    value: `${largest.lines} (${largest.file})`,
    target: '≤ 400',
    reference: '',
    pass: largest.lines <= 400,
  },
  {
    figure: 'S3 import circles among api-server/src files',
    value: circles.length === 0 ? '0' : `${circles.length}: ${circles.map((c) => c.join(' > ')).join('; ')}`,
    target: '0',
    reference: '',
    pass: circles.length === 0,
  },
]);
process.exit(ok ? 0 : 1);
