import { useEffect, useState } from 'react';

export const MOBILE_BREAKPOINT_PX = 768;

export function useMediaQuery(query: string): boolean {
  const get = () => (typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(query).matches : false);
  const [matches, setMatches] = useState(get);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const list = window.matchMedia(query);
    const onChange = () => setMatches(list.matches);
    onChange();
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

/** True at or above the mobile breakpoint (about 768 px). */
export function useIsDesktop(): boolean {
  return useMediaQuery(`(min-width: ${MOBILE_BREAKPOINT_PX}px)`);
}

/**
 * A touch screen: no hover, or a coarse primary pointer (a finger). Every text that tells a person
 * to drop, click or tap asks this one question, so a phone never reads "click" in one place and
 * "tap" in another (issue 54).
 */
export function useTouchScreen(): boolean {
  return useMediaQuery('(hover: none), (pointer: coarse)');
}
