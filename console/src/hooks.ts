import { useCallback, useEffect, useState } from 'react';
import { type Answer, errorText, get } from './api';

/** A GET of the API: its answer, its error text, and `reload`. `path` null: nothing to read yet. */
export function useApi<T>(path: string | null) {
  const [answer, setAnswer] = useState<Answer<T> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [version, setVersion] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: version forces a reload
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    get<T>(path)
      .then((a) => {
        if (!live) return;
        setAnswer(a);
        setError(null);
      })
      .catch((e) => live && setError(errorText(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { answer, data: answer?.data ?? null, error, loading, reload };
}
