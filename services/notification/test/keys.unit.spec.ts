import { describe, expect, it } from 'vitest';
import webPush from 'web-push';
import { openSqlite, SqliteDocumentStore } from '@baret/platform';
import { collections, loadKeys } from '../src/store.js';

describe('the VAPID key pair', () => {
  it('is made once and kept; a pair the operator pins (VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY) is used instead', async () => {
    const cols = collections(new SqliteDocumentStore(openSqlite(':memory:')));
    const made = await loadKeys(cols.keys);
    expect(Buffer.from(made.vapid.publicKey, 'base64url')).toHaveLength(65);
    expect((await loadKeys(cols.keys)).vapid).toEqual(made.vapid);
    const pinned = webPush.generateVAPIDKeys();
    const used = await loadKeys(cols.keys, pinned);
    expect(used.vapid).toEqual(pinned);
    expect(used.unsubscribeSecret).toBe(made.unsubscribeSecret);
    // the stored pair stays for when the pin is lifted
    expect((await loadKeys(cols.keys)).vapid).toEqual(made.vapid);
  });
});
