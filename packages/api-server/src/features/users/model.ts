import * as v from 'valibot';
import { Iso } from '../../http/schemas.ts';

export const UserSchema = v.object({
  id: v.string(),
  username: v.string(),
  role: v.picklist(['admin', 'viewer', 'share-only']),
  hasPassword: v.boolean(),
  createdAt: Iso,
  updatedAt: Iso,
});
