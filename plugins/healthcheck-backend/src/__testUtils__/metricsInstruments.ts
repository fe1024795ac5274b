/**
 * The instrument a metrics service mock made under `name` (by
 * `createCounter`, `createHistogram` and the like), failing the test if it
 * made none.
 */
export function instrumentNamed(
  create: jest.MockInstance<any, any>,
  name: string,
) {
  const index = create.mock.calls.findIndex(([called]) => called === name);
  expect(index).toBeGreaterThanOrEqual(0);
  return create.mock.results[index].value;
}
