import { matchesWildcardPattern } from './wildcardPattern';

describe('matchesWildcardPattern', () => {
  it.each`
    pattern             | text                       | matches
    ${'ready'}          | ${'ready'}                 | ${true}
    ${'ready'}          | ${'ready!'}                | ${false}
    ${''}               | ${''}                      | ${true}
    ${''}               | ${'x'}                     | ${false}
    ${'*'}              | ${''}                      | ${true}
    ${'*'}              | ${'anything at all'}       | ${true}
    ${'v2.*'}           | ${'v2.14.1'}               | ${true}
    ${'v2.*'}           | ${'v3.0.0'}                | ${false}
    ${'*.internal'}     | ${'db.eu.internal'}        | ${true}
    ${'*.internal'}     | ${'db.internal.example'}   | ${false}
    ${'*"state":"ok"*'} | ${'{"id":7,"state":"ok"}'} | ${true}
    ${'*ok*'}           | ${'failed'}                | ${false}
    ${'a*b*c'}          | ${'abc'}                   | ${true}
    ${'a*b*c'}          | ${'a-b-b-c'}               | ${true}
    ${'a*b*c'}          | ${'acb'}                   | ${false}
    ${'ab*ba'}          | ${'aba'}                   | ${false}
    ${'ab*ba'}          | ${'abba'}                  | ${true}
    ${'5??'}            | ${'503'}                   | ${true}
    ${'5??'}            | ${'5003'}                  | ${false}
    ${'?'}              | ${'😀'}                    | ${true}
    ${'*?ms'}           | ${'12ms'}                  | ${true}
    ${'*?ms'}           | ${'ms'}                    | ${false}
    ${'a?c*x?z'}        | ${'abc---xyz'}             | ${true}
    ${'*a?c'}           | ${'abcabc'}                | ${true}
    ${'/api/*/health'}  | ${'/api/v1/health'}        | ${true}
    ${'[ok]'}           | ${'[ok]'}                  | ${true}
    ${'[ok]'}           | ${'o'}                     | ${false}
    ${'a.c'}            | ${'abc'}                   | ${false}
    ${'line*end'}       | ${'line\nin between\nend'} | ${true}
  `('$pattern against $text: $matches', ({ pattern, text, matches }) => {
    expect(matchesWildcardPattern(pattern, text)).toBe(matches);
  });

  it('answers quickly for many stars over a large text that almost matches', () => {
    const text = 'a'.repeat(200_000);
    // A backtracking regular expression would take ages here.
    expect(matchesWildcardPattern('*a*a*a*a*a*a*b', text)).toBe(false);
    expect(matchesWildcardPattern('*a?a*a?a*a?a*b', text)).toBe(false);
  });
});
