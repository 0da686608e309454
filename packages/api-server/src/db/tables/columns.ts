/** Column shapes several tables share. */
import { blob, text } from 'drizzle-orm/sqlite-core';

/** A value sealed with the machine key (db/machine-key.ts). */
export const sealed = (name: string) => blob(name, { mode: 'buffer' });
export const timestamps = {
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
};
