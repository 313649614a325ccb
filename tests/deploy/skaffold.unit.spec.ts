import { Ajv } from 'ajv';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readRepoFile, repoRoot } from './adr.js';

interface Skaffold {
  apiVersion: string;
  build: { artifacts: { image: string; context?: string; docker?: { dockerfile?: string } }[] };
  deploy: { helm: { releases: { name: string; chartPath: string; namespace: string; valuesFiles: string[]; setValueTemplates: Record<string, string> }[] } };
  portForward: { resourceName: string; port: number }[];
}

const skaffold = parse(readRepoFile('skaffold.yaml')) as Skaffold;
const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readRepoFile('tests/deploy/schemas/skaffold-v4beta11.json')) as object);

describe('skaffold.yaml', () => {
  it('is valid against the skaffold v4beta11 schema, which refuses a misspelt key', () => {
    expect(skaffold.apiVersion).toBe('skaffold/v4beta11');
    expect(validate(skaffold), JSON.stringify(validate.errors?.slice(0, 5), null, 2)).toBe(true);
    const broken = structuredClone(skaffold) as unknown as { deploy: { helm: { releases: Record<string, unknown>[] } } };
    broken.deploy.helm.releases[0]!.valueFiles = ['k8s/dev/values.yaml'];
    expect(validate(broken)).toBe(false);
  });

  it('builds the one image from the Dockerfile and deploys the chart with the dev values, pointing the chart at the built image', () => {
    expect(skaffold.build.artifacts).toHaveLength(1);
    const [artifact] = skaffold.build.artifacts;
    expect(existsSync(join(repoRoot, artifact!.context ?? '.', artifact!.docker?.dockerfile ?? 'Dockerfile'))).toBe(true);
    const [release] = skaffold.deploy.helm.releases;
    expect(existsSync(join(repoRoot, release!.chartPath, 'Chart.yaml'))).toBe(true);
    for (const f of release!.valuesFiles) expect(existsSync(join(repoRoot, f)), f).toBe(true);
    expect(release!.setValueTemplates['image.repository']).toBe(`{{.IMAGE_REPO_${artifact!.image}}}`);
    expect(release!.setValueTemplates['image.tag']).toContain(`{{.IMAGE_TAG_${artifact!.image}}}`);
    expect(skaffold.portForward).toEqual([expect.objectContaining({ resourceName: `${release!.name}-gateway`, port: 8080 })]);
  });
});
