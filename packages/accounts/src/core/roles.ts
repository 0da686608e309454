/** Who makes a request: the Unix-socket caller (`local`) or an account, through a token or not. */
export interface Actor {
  /** `local` for the Unix socket, else the account. */
  kind: 'local' | 'user';
  userId: string | null;
  username: string;
  role: AccountRole;
  tokenId: string | null;
}

const RANK = { 'share-only': 0, viewer: 1, admin: 2 } as const;
export type AccountRole = keyof typeof RANK;

/** The lower of two roles (a token acts with the lower of its own role and its owner's). */
export function lowerRole<A extends AccountRole, B extends AccountRole>(a: A, b: B): A | B {
  return RANK[a] <= RANK[b] ? a : b;
}

export function roleAtLeast(role: AccountRole, needed: AccountRole): boolean {
  return RANK[role] >= RANK[needed];
}
