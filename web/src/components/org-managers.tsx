import { useTranslation } from 'react-i18next';

import { useCurrentOrg, useOrgMembers } from '@/lib/org';

/**
 * For a member of an organisation: the people who decide its plan and limits, by name and address
 * (issue 40). A member cannot act on "contact the admin"; their organisation's managers can.
 * Renders nothing for someone outside an organisation or for a manager.
 */
export function OrgManagersHint({ text }: { text: 'quota' | 'plan' }) {
  const { t } = useTranslation();
  const org = useCurrentOrg();
  const member = org.data?.role === 'member' ? org.data : null;
  const members = useOrgMembers(member?.id);
  if (!member) return null;
  const managers = (members.data ?? []).filter((m) => m.role === 'manager');
  return (
    <div className="org-managers">
      <p>{t(text === 'quota' ? 'orgManagers.quota' : 'orgManagers.plan', { org: member.name })}</p>
      {managers.length > 0 ? (
        <ul className="plain-list" aria-label={t('orgManagers.listLabel', { org: member.name })}>
          {managers.map((m) => (
            <li key={m.user_id}>
              {m.full_name ? `${m.full_name} · ` : ''}
              <a href={`mailto:${m.email}`}>{m.email}</a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
