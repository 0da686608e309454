// The server's shape (issue 33 items 3 and 6): small modules and no import circle among its files.
// The lines figure (≤ 9,000) is a benchmark (tools/bench/size/run.ts); these two hold on every commit.
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const src = import.meta.dirname;
const productFiles = fs
  .readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
  .map((e) => path.relative(src, path.join(e.parentPath, e.name)));

describe('the server is thin', () => {
  it('src holds product code and tests only: no test support in it', () => {
    expect(productFiles.filter((f) => /test-support|test-fixture|testing\/|reliability\//.test(f))).toEqual(
      [],
    );
  });

  it('no product file of src is over 400 lines', () => {
    const long = productFiles
      .map((f) => ({ f, lines: fs.readFileSync(path.join(src, f), 'utf8').split('\n').length - 1 }))
      .filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });

  it('no import circle among the files of src (type-only imports included)', async () => {
    const graph = await madge(src, {
      fileExtensions: ['ts'],
      excludeRegExp: [/\.test\.ts$/],
      tsConfig: path.join(src, '..', 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false } },
    });
    // madge also walks into other packages' builds; a circle counts when all its files are here
    const circles = graph.circular().filter((c) => c.every((f) => !f.startsWith('..')));
    expect(circles).toEqual([]);
  }, 120_000);
});
