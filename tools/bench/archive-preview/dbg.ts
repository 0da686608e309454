import { startAppliance } from '/work/main/tools/bench/src/harness.ts';
const t0 = Date.now();
const app = await startAppliance();
console.log('started', Date.now() - t0, app.root, app.socket);
await app.stop();
console.log('stopped');
