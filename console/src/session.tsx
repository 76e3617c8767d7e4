import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { ApiError, call, setCsrfToken } from './api';

export interface ConsoleSession {
  user: { id: string; email: string; name: string | null; role: string; status: string };
  tenant: { id: string; name: string; environment: string };
  csrfToken: string;
  expiresAt: string;
  permissions: string[];
}

interface SessionState {
  session: ConsoleSession | null;
  loading: boolean;
  signedIn: (session: ConsoleSession) => void;
  signOut: () => Promise<void>;
  /** Whether the role holds a permission (the UI hides what it may not do; the API decides). */
  can: (permission: string) => boolean;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<ConsoleSession | null>(null);
  const [loading, setLoading] = useState(true);

  const signedIn = useCallback((s: ConsoleSession) => {
    setCsrfToken(s.csrfToken);
    setSession(s);
  }, []);

  useEffect(() => {
    call<ConsoleSession>('GET', '/console/session')
      .then((answer) => signedIn(answer.data))
      .catch((e) => {
        if (!(e instanceof ApiError && e.status === 401)) console.error(e);
      })
      .finally(() => setLoading(false));
  }, [signedIn]);

  const signOut = useCallback(async () => {
    await call('DELETE', '/console/session').catch(() => undefined);
    setCsrfToken(null);
    setSession(null);
    window.location.hash = '#/';
  }, []);

  const can = useCallback(
    (permission: string) => session?.permissions.includes(permission) ?? false,
    [session],
  );

  return (
    <SessionContext.Provider value={{ session, loading, signedIn, signOut, can }}>
      {children}
    </SessionContext.Provider>
  );
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}
