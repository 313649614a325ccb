/** Browser storage with fixed keys; a blocked storage never breaks the app. */
export const STORAGE_KEYS = {
  token: 'baret-token',
  user: 'baret-user',
  language: 'baret-lang',
  theme: 'amp-dashboard-theme',
  recentJobs: 'baret-recent-jobs',
} as const;

export type StorageKey = (typeof STORAGE_KEYS)[keyof typeof STORAGE_KEYS];

export const storage = {
  get(key: StorageKey | string): string | null {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: StorageKey | string, value: string): void {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      /* storage full or blocked: the app keeps working without persistence */
    }
  },
  remove(key: StorageKey | string): void {
    try {
      window.localStorage.removeItem(key);
    } catch {
      /* ignore */
    }
  },
  getJson<T>(key: StorageKey | string, guard: (value: unknown) => value is T): T | null {
    const raw = storage.get(key);
    if (raw === null) return null;
    try {
      const parsed: unknown = JSON.parse(raw);
      return guard(parsed) ? parsed : null;
    } catch {
      return null;
    }
  },
  setJson(key: StorageKey | string, value: unknown): void {
    storage.set(key, JSON.stringify(value));
  },
};

const DEPARTURE_KEY = 'baret-account-deleted';

/** The profile page leaves word that the account was deleted, for the public page the person lands on (issue 40). */
export function rememberAccountDeleted(): void {
  try {
    window.sessionStorage.setItem(DEPARTURE_KEY, '1');
  } catch {
    /* no storage: the landing page without the word */
  }
}

/** Whether an account was just deleted in this tab; the word is read once. */
export function takeAccountDeleted(): boolean {
  try {
    const found = window.sessionStorage.getItem(DEPARTURE_KEY) !== null;
    window.sessionStorage.removeItem(DEPARTURE_KEY);
    return found;
  } catch {
    return false;
  }
}
