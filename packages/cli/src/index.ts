export { buildProgram, run } from './main.ts';
export { EXIT } from './framework/exit.ts';
export type { Io } from './framework/io.ts';
export { iec, relative } from './framework/format.ts';
