/** Sites and crews of an organisation: create, list, archive (managers create and archive). */
import { randomUUID } from 'node:crypto';
import { handleCommand, NotFoundError, projectInline, type DocumentStore, type EventStore, type Principal } from '@baret/platform';
import { unitDecider } from './businessLogic.js';
import { unitStream, type UnitKind } from './siteCrew.js';
import { requireOrg } from '../orgAccess.js';
import { publicUnit, siteCrewsProjection, unitCollection, type UnitDoc } from '../readModels/siteCrews.js';

export function createSitesCrews(opts: { eventStore: EventStore; documents: DocumentStore; clock: () => Date }) {
  const { eventStore, documents, clock } = opts;
  const collection = (kind: UnitKind) => documents.collection<UnitDoc>(unitCollection(kind));

  async function create(principal: Principal, orgId: string, kind: UnitKind, input: { name: string; city?: string | null }) {
    requireOrg(principal, orgId, 'manager');
    const id = randomUUID();
    const result = await handleCommand(eventStore, unitStream(kind, id), unitDecider, {
      type: 'create_unit',
      data: { kind, id, org_id: orgId, name: input.name, city: input.city ?? null, by: principal.userId, now: clock() },
    });
    await projectInline([siteCrewsProjection], result.recorded, documents, eventStore);
    const doc = await collection(kind).get(id);
    if (!doc) throw new Error('created site or crew missing from the read model');
    return publicUnit(doc);
  }

  async function list(principal: Principal, orgId: string, kind: UnitKind, includeArchived: boolean) {
    requireOrg(principal, orgId, 'member');
    const docs = await collection(kind).find({ where: { org_id: orgId, ...(includeArchived ? {} : { archived: false }) }, orderBy: [{ field: 'name' }] });
    return docs.map(publicUnit);
  }

  async function archive(principal: Principal, orgId: string, kind: UnitKind, id: string) {
    requireOrg(principal, orgId, 'manager');
    const result = await handleCommand(eventStore, unitStream(kind, id), unitDecider, { type: 'archive_unit', data: { kind, org_id: orgId, by: principal.userId, now: clock() } });
    await projectInline([siteCrewsProjection], result.recorded, documents, eventStore);
    const doc = await collection(kind).get(id);
    if (!doc) throw new NotFoundError(kind === 'site' ? 'This site does not exist.' : 'This crew does not exist.');
    return publicUnit(doc);
  }

  /** Names by id of an organisation's sites or crews, archived ones included (old jobs name them). */
  async function names(orgId: string, kind: UnitKind): Promise<Map<string, string>> {
    return new Map((await collection(kind).find({ where: { org_id: orgId } })).map((u) => [u.id, u.name]));
  }

  return { create, list, archive, names };
}
export type SitesCrews = ReturnType<typeof createSitesCrews>;
