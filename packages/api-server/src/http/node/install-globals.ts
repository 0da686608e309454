/** Imported first by the service's entry (launcher.ts): see globals.ts. */
import { installLightGlobals } from './globals.ts';

installLightGlobals();
