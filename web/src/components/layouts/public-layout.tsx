import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, Outlet } from 'react-router-dom';

import { LanguageToggle } from '@/components/language-toggle';
import { MenuButton } from '@/components/layouts/menu-button';
import { useHeaderHeight } from '@/components/layouts/use-header-height';
import { useMobileMenu } from '@/components/layouts/use-mobile-menu';
import { ThemeToggle } from '@/components/theme-toggle';
import { Alert } from '@/components/ui/alert';
import { ButtonLink } from '@/components/ui/button';
import { LogoMark } from '@/components/ui/logo';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { takeAccountDeleted } from '@/lib/storage';

const PUBLIC_LINKS = [
  { to: paths.howItWorks.path, key: 'nav.howItWorks' },
  { to: paths.ppe.path, key: 'nav.ppe' },
  { to: paths.pricing.path, key: 'nav.pricing' },
  { to: paths.contact.path, key: 'nav.contact' },
] as const;

export function Brand() {
  const { t } = useTranslation();
  return (
    // Named by what it shows ("Baret" and the tagline): a different label would not match what a voice user reads.
    <Link to={paths.home.path} className="brand">
      <LogoMark />
      <span className="brand-text">
        <span className="brand-name">Baret</span>
        <span className="brand-tagline">{t('brand.tagline')}</span>
      </span>
    </Link>
  );
}

function AuthActions({ stacked = false }: { stacked?: boolean }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const size = stacked ? 'md' : 'sm';
  if (user) {
    return (
      <ButtonLink to={paths.app.dashboard.path} size={size}>
        {t('nav.dashboard')}
      </ButtonLink>
    );
  }
  return (
    <>
      <ButtonLink to={paths.auth.login.path} variant="ghost" size={size}>
        {t('nav.login')}
      </ButtonLink>
      <ButtonLink to={paths.auth.register.path} size={size}>
        {t('nav.register')}
      </ButtonLink>
    </>
  );
}

export function PublicHeader() {
  const { t } = useTranslation();
  const header = useRef<HTMLElement>(null);
  useHeaderHeight(header);
  const menu = useMobileMenu();

  return (
    <header ref={header} className="site-header">
      <div className="container header-row">
        <Brand />
        <nav className="header-nav desktop-only" aria-label={t('shell.mainNav')}>
          {PUBLIC_LINKS.map((link) => (
            <NavLink key={link.to} to={link.to} className="nav-link">
              {t(link.key)}
            </NavLink>
          ))}
        </nav>
        <div className="header-actions">
          <div className="desktop-only header-tools">
            <ThemeToggle />
            <LanguageToggle />
            <AuthActions />
          </div>
          <div className="mobile-only">
            <MenuButton open={menu.open} onToggle={menu.toggle} controls="public-mobile-menu" openLabel={t('shell.openMenu')} closeLabel={t('shell.closeMenu')} />
          </div>
        </div>
      </div>
      {menu.open ? (
        <>
          <div className="drawer-backdrop" onClick={menu.close} aria-hidden="true" />
          <nav id="public-mobile-menu" className="drawer" aria-label={t('shell.mobileNav')}>
            {PUBLIC_LINKS.map((link) => (
              <NavLink key={link.to} to={link.to} className="drawer-link">
                {t(link.key)}
              </NavLink>
            ))}
            <div className="drawer-tools">
              <LanguageToggle />
              <ThemeToggle />
            </div>
            <div className="drawer-actions">
              <AuthActions stacked />
            </div>
          </nav>
        </>
      ) : null}
    </header>
  );
}

export function SiteFooter() {
  const { t } = useTranslation();
  const year = new Date().getFullYear();
  return (
    <footer className="site-footer">
      <div className="container footer-row">
        <div className="footer-brand">
          <LogoMark size={28} />
          <span>{t('footer.copyright', { year })}</span>
        </div>
        <nav className="footer-nav" aria-label={t('shell.footerNav')}>
          {PUBLIC_LINKS.map((link) => (
            <Link key={link.to} to={link.to}>
              {t(link.key)}
            </Link>
          ))}
        </nav>
        <p className="footer-note">{t('footer.note')}</p>
      </div>
    </footer>
  );
}

/** A word for whoever lands here after deleting their account (issue 40), instead of a silent landing page. */
function DepartureNotice() {
  const { t } = useTranslation();
  const [shown] = useState(takeAccountDeleted);
  if (!shown) return null;
  return (
    <div className="container departure-notice">
      <Alert tone="success">{t('yourData.deleted')}</Alert>
    </div>
  );
}

export function PublicLayout() {
  return (
    <div className="layout-public">
      <a className="skip-link" href="#main">
        <SkipText />
      </a>
      <PublicHeader />
      <main id="main" className="site-main" tabIndex={-1}>
        <DepartureNotice />
        <Outlet />
      </main>
      <SiteFooter />
    </div>
  );
}

function SkipText() {
  const { t } = useTranslation();
  return <>{t('shell.skipToContent')}</>;
}
