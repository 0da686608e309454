// The packages the benchmark drives, by path (tools/bench does not depend on them by name).
export * from '../../../packages/template-installer/src/index.ts';
export { createCommandRunner as createCommandRunnerFor } from '../../../packages/common/src/index.ts';
