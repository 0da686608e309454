// The slots' mountpoint directories sealed while their disks are away (issue 32): @appliance/array-planner `SlotGuards`, wired in deps.ts.
export { guardSlots } from './deps.ts';
