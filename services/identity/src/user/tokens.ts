import { createHash, randomBytes } from 'node:crypto';

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** A link's token: the user id leads, so a link names its account; the rest is 256 random bits, kept only hashed. */
export const newToken = (userId: string) => {
  const token = `${userId}.${randomBytes(32).toString('base64url')}`;
  return { token, token_hash: sha256(token) };
};

/** The user a link's token names, or null when it names none. */
export const userOfToken = (token: string): string | null => {
  const id = token.split('.')[0] ?? '';
  return /^[0-9a-f-]{36}$/.test(id) ? id : null;
};
