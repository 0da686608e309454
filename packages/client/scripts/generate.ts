import { GENERATED, generate } from './openapi-types.ts';

await generate();
process.stderr.write(`wrote ${GENERATED}\n`);
