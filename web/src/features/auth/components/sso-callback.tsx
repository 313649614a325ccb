import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { paths, safeRedirect } from '@/config/paths';
import { serverReason } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { finishSso } from '@/lib/auth/sso';

/**
 * Where the company's sign-in sends the browser back (issue 30): what it sent is posted to the
 * server once, which checks it and answers with a session; a refusal goes back to the login page
 * with the server's reason (already in the UI's language).
 */
export function SsoCallback() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { loginWithToken } = useAuth();
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    const fail = (reason: string | null) => navigate(paths.auth.login.path, { replace: true, state: { ssoError: reason ?? t('auth.sso.failed') } });
    finishSso(params).then(
      async (answer) => {
        try {
          await loginWithToken(answer.access_token);
          navigate(safeRedirect(answer.redirect_to) ?? paths.app.dashboard.path, { replace: true });
        } catch (error) {
          fail(serverReason(error));
        }
      },
      (error: unknown) => fail(serverReason(error)),
    );
  }, [params, navigate, loginWithToken, t]);

  return <Spinner label={t('auth.sso.lead')} />;
}
