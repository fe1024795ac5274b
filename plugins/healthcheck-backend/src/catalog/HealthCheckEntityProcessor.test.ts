import { Entity } from '@backstage/catalog-model';
import { JsonObject } from '@backstage/types';
import { CatalogProcessorResult } from '@backstage/plugin-catalog-node';
import { HealthCheckEntityProcessor } from './HealthCheckEntityProcessor';

const location = { type: 'file', target: '/demo/checks.yaml' };

function healthCheck(spec: JsonObject): Entity {
  return {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'HealthCheck',
    metadata: { name: 'payments-api', namespace: 'default' },
    spec,
  };
}

const validSpec = {
  type: 'http',
  target: 'http://127.0.0.1:7010/{{ environment.name }}/payments/health',
  systems: ['system:default/payments', 'checkout'],
  owner: 'payments-team',
};

describe('HealthCheckEntityProcessor', () => {
  const processor = new HealthCheckEntityProcessor();

  it('accepts a well-formed HealthCheck', async () => {
    await expect(
      processor.validateEntityKind(healthCheck(validSpec)),
    ).resolves.toBe(true);
  });

  it('leaves other kinds to other processors', async () => {
    await expect(
      processor.validateEntityKind({
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Component',
        metadata: { name: 'x' },
      }),
    ).resolves.toBe(false);
  });

  it('names the missing type', async () => {
    await expect(
      processor.validateEntityKind(healthCheck({ ...validSpec, type: null })),
    ).rejects.toThrow(
      "Invalid HealthCheck 'payments-api': spec.type is required",
    );
  });

  it('names the missing target', async () => {
    await expect(
      processor.validateEntityKind(healthCheck({ ...validSpec, target: '' })),
    ).rejects.toThrow('spec.target is required');
  });

  it('names systems that are missing or not refs', async () => {
    await expect(
      processor.validateEntityKind(healthCheck({ ...validSpec, systems: [] })),
    ).rejects.toThrow('spec.systems is required');
    await expect(
      processor.validateEntityKind(
        healthCheck({ ...validSpec, systems: [42] }),
      ),
    ).rejects.toThrow('spec.systems is required');
  });

  it('relates the check to its owner and to every system it monitors', async () => {
    const emitted: CatalogProcessorResult[] = [];
    await processor.postProcessEntity(
      healthCheck(validSpec),
      location,
      result => emitted.push(result),
    );
    const relations = emitted.map(r =>
      r.type === 'relation'
        ? `${r.relation.source.kind}:${r.relation.source.name} ${r.relation.type} ${r.relation.target.kind}:${r.relation.target.name}`
        : r.type,
    );
    expect(relations).toEqual([
      'HealthCheck:payments-api ownedBy Group:payments-team',
      'Group:payments-team ownerOf HealthCheck:payments-api',
      'HealthCheck:payments-api monitors system:payments',
      'system:payments monitoredBy HealthCheck:payments-api',
      'HealthCheck:payments-api monitors System:checkout',
      'System:checkout monitoredBy HealthCheck:payments-api',
    ]);
  });
});
