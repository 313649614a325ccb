/** Baret's mark: a hard hat over a lightning bolt. */
export function LogoMark({ size = 36 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 48 48" aria-hidden="true" focusable="false">
      <rect x="1" y="1" width="46" height="46" rx="12" fill="var(--logo-bg)" />
      <path d="M10 30c0-8 6-15 14-15s14 7 14 15" fill="var(--accent)" />
      <rect x="7" y="29" width="34" height="5" rx="2.5" fill="var(--accent)" />
      <path d="M21 15h6v9h-6z" fill="var(--accent-strong)" />
      <path d="M25.5 36l-4 6h3l-1.5 4 5-6.5h-3l1.5-3.5z" fill="var(--accent)" />
    </svg>
  );
}
