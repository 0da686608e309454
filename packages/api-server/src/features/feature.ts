import type { AppContext } from '../context.ts';
import type { AnyRoute } from '../http/route.ts';
import type { RaisedEventDecl } from '../services/observed-events.ts';

/**
 * A feature is a folder under src/features/ exporting one `Feature`: its routes, and optionally a
 * `start` hook called once at startup after the database is open (register hooks, seed rows,
 * start workers). `start` may return a stop function called at shutdown.
 */
export interface Feature {
  name: string;
  routes: AnyRoute[];
  /**
   * The catalog events this feature raises (GET /notifications/event-types says `observed: true`
   * for them), optionally only while a configuration holds.
   */
  raises?: readonly RaisedEventDecl<AppContext>[];
  start?: (
    ctx: AppContext,
  ) => void | (() => void | Promise<void>) | Promise<void | (() => void | Promise<void>)>;
}
