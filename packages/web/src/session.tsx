import { type QueryClient, useQuery } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';
import { ApiError, api } from './api.ts';

export interface Me {
  username: string;
  role: 'admin' | 'viewer';
}

const MeContext = createContext<Me | null>(null);

/** Who is signed in (inside the signed-in shell). */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in shell');
  return me;
}

/** True when the signed-in account may not write: every write control is then disabled. */
export function useReadOnly(): boolean {
  return useMe().role !== 'admin';
}

export function MeProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <MeContext.Provider value={me}>{children}</MeContext.Provider>;
}

/** The session query: the caller, null when signed out (401), or the setup state. */
export function useSession() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async (): Promise<{ me: Me | null; setupRequired: boolean }> => {
      const { setupRequired } = await api.get('/setup/status');
      if (setupRequired) return { me: null, setupRequired };
      try {
        const me = await api.get('/session');
        return { me: { username: me.username, role: me.role }, setupRequired };
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return { me: null, setupRequired };
        throw err;
      }
    },
    retry: false,
    staleTime: 60_000,
  });
}

/** After sign-out: the page shows sign-in at once and keeps nothing of the account's data. */
export function signedOut(qc: QueryClient): void {
  qc.setQueryData<{ me: Me | null; setupRequired: boolean }>(['session'], { me: null, setupRequired: false });
  qc.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
}
