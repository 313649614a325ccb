export function MenuButton({ open, onToggle, controls, openLabel, closeLabel }: { open: boolean; onToggle: () => void; controls: string; openLabel: string; closeLabel: string }) {
  return (
    <button type="button" className="icon-btn menu-btn" aria-expanded={open} aria-controls={controls} aria-label={open ? closeLabel : openLabel} onClick={onToggle}>
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
        {open ? (
          <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        ) : (
          <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        )}
      </svg>
    </button>
  );
}
