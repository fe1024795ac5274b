import { renderTable } from './renderTable';

describe('renderTable', () => {
  it('pads every column to its widest cell', () => {
    expect(
      renderTable([
        ['', 'off', 'on'],
        ['completions', '300', '900'],
      ]),
    ).toBe(['             off  on', 'completions  300  900'].join('\n'));
  });
});
