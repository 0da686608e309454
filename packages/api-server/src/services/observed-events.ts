/**
 * Which catalog events this installation can raise (`observed` in GET /notifications/event-types),
 * so an admin never routes an event that cannot come. Each feature declares the events it raises
 * (`Feature.raises`); an entry may depend on the configuration (the UPS events need a UPS in the
 * settings). Nothing is listed in one central place: a feature that does not exist yet raises
 * nothing, and its events read `observed: false`.
 */

/**
 * An event a feature raises: always, or while `when` says so (`C`: what `when` reads, the
 * server's context; a parameter so this module does not import the context that holds it).
 */
export type RaisedEventDecl<C> = string | { eventType: string; when: (ctx: C) => boolean };

export class ObservedEvents<C> {
  private readonly entries = new Map<string, Array<((ctx: C) => boolean) | true>>();

  add(decl: RaisedEventDecl<C>): void {
    const [type, when] = typeof decl === 'string' ? [decl, true as const] : [decl.eventType, decl.when];
    this.entries.set(type, [...(this.entries.get(type) ?? []), when]);
  }

  /** Whether some feature of this installation raises the event now. */
  observed(eventType: string, ctx: C): boolean {
    return (this.entries.get(eventType) ?? []).some((w) => w === true || w(ctx));
  }
}
