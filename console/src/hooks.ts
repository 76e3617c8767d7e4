import { useCallback, useEffect, useState } from 'react';
import { type Answer, errorText, get } from './api';

/** A GET of the API: its answer, its error text, and `reload`. `path` null: nothing to read yet. */
export function useApi<T>(path: string | null) {
  // Kept with the path it answers: a component reused for another path never shows the old one's rows.
  const [read, setRead] = useState<{ path: string; answer: Answer<T> } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [version, setVersion] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: version forces a reload
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    get<T>(path)
      .then((answer) => {
        if (!live) return;
        setRead({ path, answer });
        setError(null);
      })
      .catch((e) => live && setError(errorText(e)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const answer = read && read.path === path ? read.answer : null;
  return { answer, data: answer?.data ?? null, error, loading, reload };
}

/** Calls `tick` every `ms` while `active` (a list whose rows are still changing). */
export function useInterval(tick: () => void, ms: number, active: boolean) {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  }, [tick, ms, active]);
}
