import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink, Outlet } from 'react-router-dom';

import { LanguageToggle } from '@/components/language-toggle';
import { MenuButton } from '@/components/layouts/menu-button';
import { Brand } from '@/components/layouts/public-layout';
import { useHeaderHeight } from '@/components/layouts/use-header-height';
import { useMobileMenu } from '@/components/layouts/use-mobile-menu';
import { ThemeToggle } from '@/components/theme-toggle';
import { Badge } from '@/components/ui/badge';
import { Button, ButtonLink } from '@/components/ui/button';
import { paths } from '@/config/paths';
import type { ReactNode } from 'react';
import { useAuth } from '@/lib/auth';
import { useCurrentOrg } from '@/lib/org';

function useAppLinks() {
  const { isAdmin, user } = useAuth();
  const org = useCurrentOrg(!!user);
  const links: { to: string; key: string; end?: boolean }[] = [
    { to: paths.home.path, key: 'nav.home', end: true },
    { to: paths.app.dashboard.path, key: 'nav.analyze', end: true },
    { to: paths.app.history.path, key: 'nav.history' },
    { to: paths.app.apiKeys.path, key: 'nav.api' },
    { to: paths.app.organisation.path, key: 'nav.organisation' },
    { to: paths.app.profile.path, key: 'nav.profile' },
  ];
  // Managers get the compliance dashboard, before the organisation page.
  if (org.data?.role === 'manager') links.splice(3, 0, { to: paths.app.compliance.path, key: 'nav.compliance' });
  if (isAdmin) links.push({ to: paths.app.admin.path, key: 'nav.admin' });
  return links;
}

/** `role`: the Admin badge beside the name; the desktop header leaves it out, its nav already has "Admin" (issue 40: the header wrapped at 1440 px). */
function UserBadge({ role = true }: { role?: boolean }) {
  const { t } = useTranslation();
  const { user, isAdmin } = useAuth();
  if (!user) return null;
  return (
    <span className="user-badge">
      <span className="user-avatar" aria-hidden="true">
        {(user.full_name || user.email).charAt(0).toUpperCase()}
      </span>
      <span className="user-name" title={user.full_name || user.email}>
        {user.full_name || user.email}
      </span>
      {isAdmin && role ? <Badge tone="accent">{t('nav.adminLabel')}</Badge> : null}
    </span>
  );
}

function SessionActions({ stacked = false }: { stacked?: boolean }) {
  const { t } = useTranslation();
  const { user, logout } = useAuth();
  if (!user) {
    return (
      <ButtonLink to={paths.auth.login.path} size="sm">
        {t('nav.login')}
      </ButtonLink>
    );
  }
  return (
    <Button
      variant="secondary"
      size={stacked ? 'md' : 'sm'}
      onClick={logout}
    >
      {t('nav.logout')}
    </Button>
  );
}

export function AppNav({ tools }: { tools?: ReactNode } = {}) {
  const { t } = useTranslation();
  const header = useRef<HTMLElement>(null);
  useHeaderHeight(header);
  const menu = useMobileMenu();
  const links = useAppLinks();
  return (
    <header ref={header} className={links.length > 6 ? 'site-header app-header many-links' : 'site-header app-header'}>
      <div className="container-wide header-row">
        <Brand />
        <nav className="header-nav desktop-only" aria-label={t('shell.appNav')}>
          {links.map((link) => (
            <NavLink key={link.to} to={link.to} end={link.end} className="nav-link">
              {t(link.key)}
            </NavLink>
          ))}
        </nav>
        <div className="header-actions">
          {tools}
          <div className="desktop-only header-tools">
            <LanguageToggle />
            <ThemeToggle />
            <UserBadge role={false} />
            <SessionActions />
          </div>
          <div className="mobile-only">
            <MenuButton open={menu.open} onToggle={menu.toggle} controls="app-mobile-menu" openLabel={t('shell.openMenu')} closeLabel={t('shell.closeMenu')} />
          </div>
        </div>
      </div>
      {menu.open ? (
        <>
          <div className="drawer-backdrop" onClick={menu.close} aria-hidden="true" />
          <nav id="app-mobile-menu" className="drawer" aria-label={t('shell.mobileNav')}>
            <div className="drawer-user">
              <UserBadge />
            </div>
            {links.map((link) => (
              <NavLink key={link.to} to={link.to} end={link.end} className="drawer-link">
                {t(link.key)}
              </NavLink>
            ))}
            <div className="drawer-tools">
              <LanguageToggle />
              <ThemeToggle />
            </div>
            <div className="drawer-actions">
              <SessionActions stacked />
            </div>
          </nav>
        </>
      ) : null}
    </header>
  );
}

/** `tools`: shown in the header on every size (the notification bell); `banner`: above every page (composed in app/router). */
export function DashboardLayout({ tools, banner }: { tools?: ReactNode; banner?: ReactNode } = {}) {
  const { t } = useTranslation();
  return (
    <div className="layout-app">
      <a className="skip-link" href="#main">
        {t('shell.skipToContent')}
      </a>
      <AppNav tools={tools} />
      <main id="main" className="app-main" tabIndex={-1}>
        <div className="container-wide">
          {banner}
          <Outlet />
        </div>
      </main>
    </div>
  );
}
