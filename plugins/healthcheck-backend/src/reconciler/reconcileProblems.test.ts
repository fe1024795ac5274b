import {
  CATALOG_SUBJECT,
  checkSubject,
  describeSubject,
  problemsBySubject,
  ReportedProblems,
} from './reconcileProblems';

const SHOP = 'system:default/shop';
const BILLING = 'system:default/billing';

describe('problemsBySubject', () => {
  it('files each problem under its system, naming check, system and environment for a refused slice', () => {
    expect(
      problemsBySubject({
        environmentProblems: [
          {
            entityRef: 'component:default/intruder',
            systemRef: SHOP,
            message: 'vigil.dev/environment on component:default/intruder ...',
          },
          {
            entityRef: 'environment:default/eu_west',
            message: 'Environment entity environment:default/eu_west ...',
          },
        ],
        unresolvedSystems: [
          { checkId: 'web', systemRef: 'System:default/Gone', reason: 'x' },
        ],
        invalidChecks: [
          { checkId: 'row-7', problems: ['spec.a: b', 'spec.c: d'] },
        ],
        refused: [
          {
            id: 'healthcheck:web:system%3Adefault%2Fshop:production',
            checkId: 'web',
            systemRef: SHOP,
            environment: 'production',
            reason: 'the system\'s name "shop.eu" cannot go into its target',
          },
        ],
      }),
    ).toEqual(
      new Map([
        [
          checkSubject('row-7'),
          ['check row-7 runs nowhere until it is fixed: spec.a: b; spec.c: d'],
        ],
        [
          SHOP,
          [
            'vigil.dev/environment on component:default/intruder ...',
            'check web does not run for system:default/shop in environment "production": the system\'s name "shop.eu" cannot go into its target',
          ],
        ],
        [
          CATALOG_SUBJECT,
          ['Environment entity environment:default/eu_west ...'],
        ],
        [
          'system:default/gone',
          ['check web names System:default/Gone, which is not in the catalog'],
        ],
      ]),
    );
  });
});

describe('describeSubject', () => {
  it('reads a system as its ref, a check as "check <id>"', () => {
    expect(describeSubject(SHOP)).toBe(SHOP);
    expect(describeSubject(checkSubject('row-7'))).toBe('check row-7');
    expect(describeSubject(CATALOG_SUBJECT)).toBe(
      "the catalog's Environment entities",
    );
  });
});

describe('ReportedProblems', () => {
  it('reports a problem once, until it changes or goes away', () => {
    const reported = new ReportedProblems();
    const problems = new Map([[SHOP, ['a']]]);
    expect(reported.update('full', problems)).toEqual([
      { subject: SHOP, problems: ['a'] },
    ]);
    expect(reported.update('full', problems)).toEqual([]);
    expect(reported.update('full', new Map([[SHOP, ['a', 'b']]]))).toEqual([
      { subject: SHOP, problems: ['a', 'b'] },
    ]);
    expect(reported.update('full', new Map())).toEqual([
      { subject: SHOP, problems: [] },
    ]);
    expect(reported.update('full', new Map())).toEqual([]);
  });

  it('lets a scoped pass speak only for its systems', () => {
    const reported = new ReportedProblems();
    reported.update(
      'full',
      new Map([
        [SHOP, ['a']],
        [BILLING, ['b']],
        [CATALOG_SUBJECT, ['c']],
      ]),
    );
    // Billing was not read, so its problems stand; shop's are gone.
    expect(reported.update([SHOP], new Map())).toEqual([
      { subject: SHOP, problems: [] },
    ]);
    expect(reported.update([BILLING], new Map([[BILLING, ['b']]]))).toEqual([]);
    expect(reported.update([SHOP], new Map([[SHOP, ['d']]]))).toEqual([
      { subject: SHOP, problems: ['d'] },
    ]);
    // The next full pass reports nothing it already said.
    expect(
      reported.update(
        'full',
        new Map([
          [SHOP, ['d']],
          [BILLING, ['b']],
          [CATALOG_SUBJECT, ['c']],
        ]),
      ),
    ).toEqual([]);
  });

  it('lets a scoped pass report a check it read, once, and leaves clearing it to a full pass', () => {
    const reported = new ReportedProblems();
    const invalid = new Map([[checkSubject('row-7'), ['x']]]);
    expect(reported.update([SHOP], invalid)).toEqual([
      { subject: checkSubject('row-7'), problems: ['x'] },
    ]);
    expect(reported.update([SHOP], invalid)).toEqual([]);
    expect(reported.update([SHOP], new Map())).toEqual([]);
    expect(reported.update('full', new Map())).toEqual([
      { subject: checkSubject('row-7'), problems: [] },
    ]);
  });
});
