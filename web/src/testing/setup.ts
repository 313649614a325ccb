import '@testing-library/jest-dom/vitest';

import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';

import { server } from '@/testing/server';
import { setAuthToken } from '@/lib/api-client';
import { i18n, loadAllTexts } from '@/lib/i18n';

// Pages are lazy chunks (React.lazy): their first import is transformed on demand, which takes
// longer than the default second on a busy machine.
configure({ asyncUtilTimeout: 4000 });

// The first load brings only the landing page's texts (issue 40); components rendered alone need all.
// The signed-in frame is a lazy chunk too: transformed once here, not inside a test's wait.
beforeAll(() => Promise.all([loadAllTexts('tr'), loadAllTexts('en'), import('@/app/routes/app/shell')]));

// jsdom lacks these browser facilities.
if (typeof window.matchMedia !== 'function') {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    configurable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    }),
  });
}
if (typeof globalThis.ResizeObserver === 'undefined') {
  globalThis.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
}
let objectUrlCounter = 0;
URL.createObjectURL = vi.fn(() => `blob:baret/${++objectUrlCounter}`);
URL.revokeObjectURL = vi.fn();
window.scrollTo = vi.fn() as unknown as typeof window.scrollTo;
Element.prototype.scrollIntoView = vi.fn();
HTMLMediaElement.prototype.play = vi.fn(() => Promise.resolve());
HTMLMediaElement.prototype.pause = vi.fn();

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(async () => {
  window.localStorage.clear();
  setAuthToken(null);
  await i18n.changeLanguage('tr');
});
afterEach(() => {
  cleanup();
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => server.close());
