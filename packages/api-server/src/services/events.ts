/** The event bus lives in @appliance/common; the server's modules import it from here. */
export { EventBus, type ProgressData, type ServerEvent } from '@appliance/common';
