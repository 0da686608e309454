export * from './core/facts.ts';
export * from './core/checks.ts';
export * from './core/report.ts';
export * from './gather.ts';
export {
  createRealProbes,
  dockerPing,
  freeSpace,
  readTlsPair,
  type RealProbeOptions,
} from './node/probes.ts';
export { DOCTOR_HELP, doctorCommand, type DoctorDeps, type DoctorIo } from './command.ts';
