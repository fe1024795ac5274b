import { checkResourceOf, systemRefsOf } from './checkResource';

const spec = { type: 'http', target: 'http://x.example' };

describe('systemRefsOf', () => {
  it('resolves each entry as the reconciler does: kind System, the namespace given, lower case', () => {
    expect(
      systemRefsOf(
        ['payments', 'ops/Pager', 'System:Default/Search'],
        'default',
      ),
    ).toEqual([
      'system:default/payments',
      'system:ops/pager',
      'system:default/search',
    ]);
    expect(systemRefsOf(['payments'], 'team-a')).toEqual([
      'system:team-a/payments',
    ]);
  });

  it('marks an entry that names no System, which nobody can read', () => {
    expect(systemRefsOf(['component:default/cart', ''], 'default')).toEqual([
      undefined,
      undefined,
    ]);
  });
});

describe('checkResourceOf', () => {
  it('makes an API check owned by its spec.owner, a Group unless it says otherwise', () => {
    expect(
      checkResourceOf({
        id: 'payments-http',
        spec: { ...spec, systems: ['payments'], owner: 'Payments-Team' },
        source: {
          kind: 'api',
          createdBy: 'user:default/alice',
          createdAt: '',
          updatedBy: 'user:default/alice',
          updatedAt: '',
        },
      }),
    ).toEqual({
      id: 'payments-http',
      source: 'api',
      owner: 'group:default/payments-team',
      systems: ['system:default/payments'],
    });
  });

  it('makes an API check without an owner owned by its creator', () => {
    expect(
      checkResourceOf({
        id: 'payments-http',
        spec: { ...spec, systems: ['payments'] },
        source: {
          kind: 'api',
          createdBy: 'user:default/Alice',
          createdAt: '',
          updatedBy: 'user:default/bob',
          updatedAt: '',
        },
      }).owner,
    ).toBe('user:default/alice');
  });

  it("resolves a GitOps check's refs in its entity's namespace, and leaves it unowned without spec.owner", () => {
    expect(
      checkResourceOf({
        id: 'healthcheck:team-a/payments-api',
        spec: { ...spec, systems: ['payments', 'default/search'] },
        source: {
          kind: 'gitops',
          entityRef: 'healthcheck:team-a/payments-api',
        },
      }),
    ).toEqual({
      id: 'healthcheck:team-a/payments-api',
      source: 'gitops',
      owner: undefined,
      systems: ['system:team-a/payments', 'system:default/search'],
    });
    expect(
      checkResourceOf({
        id: 'healthcheck:team-a/payments-api',
        spec: { ...spec, systems: [], owner: 'payments-team' },
        source: {
          kind: 'gitops',
          entityRef: 'healthcheck:team-a/payments-api',
        },
      }).owner,
    ).toBe('group:team-a/payments-team');
  });
});
