import { lookup } from 'node:dns/promises';
import { ValidationError } from '@baret/platform';
import { BlockedAddressError, checkTarget, isPrivateAddress } from './safeHttp.js';

/** A webhook or push target: http(s), and — unless private hosts are allowed — public after DNS resolution. */
export async function checkUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('The URL must be a full http:// or https:// URL.');
  }
  if (url.username || url.password) throw new ValidationError('The URL must not contain a user name or password.');
  try {
    checkTarget(url, allowPrivate);
  } catch (e) {
    if (e instanceof BlockedAddressError && !url.protocol.startsWith('http')) throw new ValidationError('The URL must be a full http:// or https:// URL.');
    if (e instanceof BlockedAddressError) throw new ValidationError('Private, loopback and link-local addresses are not allowed.');
    throw e;
  }
  if (!allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A name that does not resolve (now) is left to the check at connect time, which every request makes.
    const addresses = await Promise.race([
      lookup(host, { all: true }).catch(() => []),
      new Promise<[]>((resolve) => setTimeout(() => resolve([]), 3000).unref()),
    ]);
    if (addresses.some((a) => isPrivateAddress(a.address))) throw new ValidationError('Private, loopback and link-local addresses are not allowed.');
  }
  return url;
}
