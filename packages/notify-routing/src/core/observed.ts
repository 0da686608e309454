/**
 * Which catalog events this installation can raise (`observed` in GET /notifications/event-types),
 * so an admin never routes an event that cannot come. Each feature declares the events it raises
 * (`Feature.raises`); an entry may depend on the configuration (the UPS events need a UPS in the
 * settings). Nothing is listed in one central place: a feature that does not exist yet raises
 * nothing, and its events read `observed: false`.
 */
/** An event a feature raises: always, or while `when` says so. */
export type RaisedEventDecl<Ctx> = string | { eventType: string; when: (ctx: Ctx) => boolean };

/** Generic over the context `when` reads (the server's `AppContext`), so this module imports none. */
export class ObservedEvents<Ctx> {
  private readonly entries = new Map<string, Array<((ctx: Ctx) => boolean) | true>>();

  add(decl: RaisedEventDecl<Ctx>): void {
    const [type, when] = typeof decl === 'string' ? [decl, true as const] : [decl.eventType, decl.when];
    this.entries.set(type, [...(this.entries.get(type) ?? []), when]);
  }

  /** Whether some feature of this installation raises the event now. */
  observed(eventType: string, ctx: Ctx): boolean {
    return (this.entries.get(eventType) ?? []).some((w) => w === true || w(ctx));
  }
}
