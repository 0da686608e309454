// Sums the vitest JSON reports of every package into the closing line CI reads:
// "tests: N passed, N failed" (and the skipped count, which must stay 0 on main).
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
let passed = 0;
let failed = 0;
let skipped = 0;
const rows = [];
for (const group of ['packages', 'tools']) {
  const dir = path.join(root, group);
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name, '.reports', 'vitest.json');
    if (!fs.existsSync(file)) continue;
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    passed += r.numPassedTests ?? 0;
    failed += (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0);
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    rows.push(`${group}/${name}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
  }
}
console.log(rows.join('\n'));
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 ? 1 : 0;
