import type { PlanEstimate } from './types.ts';

/** Sustained sequential average of a current 3.5″ hard disk across the platter (03 §7.4). */
export const ASSUMED_BYTES_PER_SECOND = 150_000_000;

export function estimate(bytesToCopy: number, basis: PlanEstimate['basis'], passes: number): PlanEstimate {
  return {
    bytesToCopy,
    basis,
    passes,
    assumedBytesPerSecond: ASSUMED_BYTES_PER_SECOND,
    seconds: Math.ceil((passes * bytesToCopy) / ASSUMED_BYTES_PER_SECOND),
  };
}
