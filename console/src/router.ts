import { useEffect, useState } from 'react';

/** The hash route as path segments: `#/orders/abc` → ['orders', 'abc']. */
function segments(): string[] {
  const [path = ''] = window.location.hash.replace(/^#\/?/, '').split('?');
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(segments);
  useEffect(() => {
    const onChange = () => setRoute(segments());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

export function navigate(...parts: string[]) {
  window.location.hash = href(...parts);
}
