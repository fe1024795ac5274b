import { parseSystemListQuery } from './parseSystemListQuery';

describe('parseSystemListQuery', () => {
  it('lists by status, 50 at a time, from the start, by default', () => {
    expect(parseSystemListQuery({})).toEqual({
      statuses: undefined,
      owner: undefined,
      environment: undefined,
      search: undefined,
      sort: 'status',
      limit: 50,
      offset: 0,
    });
  });

  it('reads statuses, filters, sort, limit and the cursor it gave out', () => {
    expect(
      parseSystemListQuery({
        status: 'unhealthy, degraded',
        owner: 'group:default/team-a',
        environment: 'production',
        q: 'pay',
        sort: 'name',
        limit: '500',
        cursor: Buffer.from('100').toString('base64url'),
      }),
    ).toEqual({
      statuses: ['unhealthy', 'degraded'],
      owner: 'group:default/team-a',
      environment: 'production',
      search: 'pay',
      sort: 'name',
      limit: 500,
      offset: 100,
    });
  });

  it('names every problem in one error', () => {
    expect(() =>
      parseSystemListQuery({
        status: 'sick',
        sort: 'age',
        limit: '501',
        cursor: '!!',
        owner: ['a', 'b'],
        page: '2',
      }),
    ).toThrow(
      /^Invalid query: page: unknown parameter \(known: .*\); status: 'sick' is not one of .*; sort: 'age' is not 'status' or 'name'; limit: '501' is not a whole number from 1 to 500; cursor: not one this API gave out; owner: give it once, as text$/,
    );
  });
});
