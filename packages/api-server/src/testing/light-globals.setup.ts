// The service's process runs with the light Fetch classes as its globals (src/http/node/globals.ts,
// installed first by the launcher); the package's tests run with them too, so that every answer a
// test reads went through the same classes as in production. fetch() keeps undici's own classes.
import { installLightGlobals } from '../http/node/globals.ts';

installLightGlobals();
