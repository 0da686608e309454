/**
 * What the end of a run or a drill writes into its plan's state. A successful run is the plan's
 * last success (it ends a staleness condition) and, the first time, its first success (drills
 * count from it); a drill counts (each checks another tenth of the data).
 */

/** The fields the end of a run writes. */
export interface RunEndPatch {
  lastRunJobId: string;
  lastRunAt: string;
  lastRunState: string;
  lastSuccessAt?: string;
  firstSuccessAt?: string;
}

export function runEnd(
  state: { firstSuccessAt: string | null },
  at: string,
  jobId: string,
  outcome: string,
): RunEndPatch {
  const success = outcome === 'succeeded';
  return {
    lastRunJobId: jobId,
    lastRunAt: at,
    lastRunState: outcome,
    ...(success ? { lastSuccessAt: at, firstSuccessAt: state.firstSuccessAt ?? at } : {}),
  };
}

/** The fields the end of a drill writes. */
export const drillEnd = (state: { drillCount: number }, at: string, jobId: string, outcome: string) => ({
  lastDrillJobId: jobId,
  lastDrillAt: at,
  lastDrillState: outcome,
  drillCount: state.drillCount + 1,
});
