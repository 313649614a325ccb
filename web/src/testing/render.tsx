import { QueryClient } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { expect } from 'vitest';
import { RouterProvider, createMemoryRouter } from 'react-router-dom';

import { AppProvider } from '@/app/provider';
import { routes } from '@/app/router';
import { STORAGE_KEYS } from '@/lib/storage';
import { HttpResponse, http, server } from '@/testing/server';
import type { User } from '@/types/api';

export function testQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 0 }, mutations: { retry: false } } });
}

export interface RenderAppOptions {
  /** Logged in as this user (a token is stored and /auth/me answers with the user). */
  user?: User;
  /** Store a token but let the test answer /auth/me itself. */
  token?: string;
}

/** Renders the real route tree at `path`, with HTTP mocked by msw. */
export function renderApp(path: string, options: RenderAppOptions = {}) {
  if (options.user) {
    window.localStorage.setItem(STORAGE_KEYS.token, 'test-token');
    const current = { value: options.user };
    server.use(http.get('*/auth/me', () => HttpResponse.json(current.value)));
  }
  if (options.token) window.localStorage.setItem(STORAGE_KEYS.token, options.token);
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const queryClient = testQueryClient();
  const utils = render(
    <AppProvider queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...utils, router, queryClient };
}

/** Waits until the session has resolved (the 'Yükleniyor…' spinner is gone). */
export async function sessionResolved(): Promise<void> {
  await waitFor(() => expect(screen.queryByText('Yükleniyor…')).not.toBeInTheDocument());
}
