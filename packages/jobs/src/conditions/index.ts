export {
  CLEARED_RETENTION_MS,
  type ConditionReport,
  Conditions,
  type HeldConditionView,
} from './conditions.ts';
export { CollectingConditionEvents, type MemoryConditionRow, MemoryConditionStore } from './memory-store.ts';
export {
  type Condition,
  type Decision,
  decide,
  groupOnsets,
  type HeldCondition,
  type Observation,
  type OnsetGroup,
} from './model.ts';
export type {
  ConditionEvents,
  ConditionPorts,
  ConditionStore,
  ConditionsLogger,
  ConditionWrite,
  RaisedEvent,
  StoredCondition,
} from './ports.ts';
export { type RaiseSinks, raiseWithinOrAfter } from './events.ts';
