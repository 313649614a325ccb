import { useEffect, type RefObject } from 'react';

/** Default header height before it is measured (spec section 2). */
export const DEFAULT_HEADER_HEIGHT_PX = 96;

/** Publishes the measured header height as --header-height for the mobile menu and scroll offsets. */
export function useHeaderHeight(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = ref.current;
    const root = document.documentElement;
    const publish = () => {
      const height = element?.getBoundingClientRect().height || DEFAULT_HEADER_HEIGHT_PX;
      root.style.setProperty('--header-height', `${Math.round(height)}px`);
    };
    publish();
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(publish);
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
}
