/** Every route of the web app and how to build a link to it. */

/** Only same-site absolute paths are accepted as a place to come back to after login. */
export function safeRedirect(target: string | null | undefined): string | null {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return null;
  return target;
}

function withRedirect(base: string, redirectTo?: string | null): string {
  const safe = safeRedirect(redirectTo);
  return safe ? `${base}?redirectTo=${encodeURIComponent(safe)}` : base;
}

export const paths = {
  home: { path: '/', getHref: () => '/' },
  howItWorks: { path: '/how-it-works', getHref: () => '/how-it-works' },
  ppe: { path: '/ppe-equipment', getHref: () => '/ppe-equipment' },
  pricing: { path: '/pricing', getHref: (hash?: string) => (hash ? `/pricing#${hash}` : '/pricing') },
  contact: { path: '/contact', getHref: () => '/contact' },
  auth: {
    login: { path: '/login', getHref: (redirectTo?: string | null) => withRedirect('/login', redirectTo) },
    /** Where the company's sign-in (OpenID Connect) sends the browser back: the server's default OIDC redirect URL. */
    sso: { path: '/login/sso', getHref: () => '/login/sso' },
    register: { path: '/register', getHref: (redirectTo?: string | null) => withRedirect('/register', redirectTo) },
    forgotPassword: { path: '/forgot-password', getHref: () => '/forgot-password' },
    resetPassword: { path: '/reset-password', getHref: (token: string) => `/reset-password?token=${encodeURIComponent(token)}` },
    verifyEmail: { path: '/verify-email', getHref: (token: string) => `/verify-email?token=${encodeURIComponent(token)}` },
  },
  app: {
    dashboard: { path: '/dashboard', getHref: () => '/dashboard' },
    job: { path: '/dashboard/jobs/:id', getHref: (id: string) => `/dashboard/jobs/${encodeURIComponent(id)}` },
    history: { path: '/dashboard/history', getHref: () => '/dashboard/history' },
    /** The team's review queue (issue 53): the organisation's jobs with findings not yet reviewed. */
    reviewQueue: { path: '/dashboard/history', getHref: () => '/dashboard/history?scope=org&reviewed=false' },
    apiKeys: { path: '/dashboard/api-keys', getHref: () => '/dashboard/api-keys' },
    profile: { path: '/dashboard/profile', getHref: () => '/dashboard/profile' },
    admin: { path: '/dashboard/admin', getHref: () => '/dashboard/admin' },
    compliance: { path: '/dashboard/compliance', getHref: () => '/dashboard/compliance' },
    organisation: { path: '/dashboard/organisation', getHref: () => '/dashboard/organisation' },
    invite: { path: '/invite/:token', getHref: (token: string) => `/invite/${encodeURIComponent(token)}` },
  },
} as const;
