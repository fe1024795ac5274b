import { ConditionParseError } from './ConditionParseError';
import { MAX_CONDITION_LENGTH, parseCondition } from './parseCondition';

function parseError(text: string): ConditionParseError {
  try {
    parseCondition(text);
  } catch (error) {
    if (error instanceof ConditionParseError) {
      return error;
    }
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}

describe('parseCondition', () => {
  it('splits a condition into two operands and an operator', () => {
    expect(parseCondition('[STATUS] == 204')).toEqual({
      text: '[STATUS] == 204',
      left: {
        kind: 'placeholder',
        name: 'STATUS',
        path: [],
        text: '[STATUS]',
        position: 0,
      },
      operator: '==',
      right: { kind: 'literal', text: '204', position: 12 },
    });
  });

  it.each(['==', '!=', '<', '<=', '>', '>='])(
    'reads the operator %s',
    operator => {
      expect(parseCondition(`[RESPONSE_TIME] ${operator} 250`).operator).toBe(
        operator,
      );
    },
  );

  it('reads a [BODY] path of keys and array indexes', () => {
    const condition = parseCondition('[BODY].cluster.nodes[2].name == n3');
    expect(condition.left).toMatchObject({
      name: 'BODY',
      path: [
        { key: 'cluster' },
        { key: 'nodes' },
        { index: 2 },
        { key: 'name' },
      ],
    });
  });

  it('reads indexes at the root of the body and nested indexes', () => {
    expect(parseCondition('[BODY][1][0] == x').left).toMatchObject({
      path: [{ index: 1 }, { index: 0 }],
    });
  });

  it('accepts placeholder names in any case and keeps keys as written', () => {
    expect(parseCondition('[Body].Service-Name == api').left).toMatchObject({
      name: 'BODY',
      path: [{ key: 'Service-Name' }],
      text: '[Body].Service-Name',
    });
    expect(parseCondition('[status] == 200').left).toMatchObject({
      name: 'STATUS',
    });
  });

  it('reads len() and has() around a placeholder, spaces allowed inside', () => {
    expect(parseCondition('len( [BODY].pods ) > 2').left).toMatchObject({
      kind: 'len',
      text: 'len( [BODY].pods )',
      of: { name: 'BODY', path: [{ key: 'pods' }], position: 5 },
    });
    expect(parseCondition('has([BODY].errors) == false').left).toMatchObject({
      kind: 'has',
      of: { name: 'BODY', path: [{ key: 'errors' }] },
    });
  });

  it('keeps a pat() pattern exactly as written, spaces included', () => {
    expect(parseCondition('[BODY] == pat(* ok *)').right).toEqual({
      kind: 'pat',
      text: 'pat(* ok *)',
      position: 10,
      pattern: '* ok *',
    });
  });

  it('reads any() options, trimmed', () => {
    expect(
      parseCondition('[STATUS] == any(200,  201 ,204)').right,
    ).toMatchObject({ kind: 'any', options: ['200', '201', '204'] });
  });

  it('ignores operator characters inside brackets and parentheses', () => {
    const condition = parseCondition('[BODY] == pat(*<td class="x">ok</td>*)');
    expect(condition.operator).toBe('==');
    expect(condition.right).toMatchObject({
      pattern: '*<td class="x">ok</td>*',
    });
  });

  it('takes == before the other operators, leaving them to the value, as Gatus does', () => {
    expect(parseCondition('[BODY].rule == a < b').right).toMatchObject({
      kind: 'literal',
      text: 'a < b',
    });
  });

  it('keeps a value with spaces or unspaced operator characters as one literal', () => {
    expect(
      parseCondition('[BODY].motto == all systems go').right,
    ).toMatchObject({ text: 'all systems go' });
    expect(parseCondition('[BODY].query == a=1&b<2').right).toMatchObject({
      text: 'a=1&b<2',
    });
  });

  it('accepts tabs and extra spaces around the operator', () => {
    expect(parseCondition('  [STATUS]\t==   200 ').right).toMatchObject({
      text: '200',
      position: 16,
    });
  });

  it('accepts numbers and durations on either side of an ordering operator', () => {
    for (const text of [
      '[RESPONSE_TIME] < 0x1F4',
      '[RESPONSE_TIME] < 1_500',
      '[RESPONSE_TIME] < 2.5e2',
      '[CERTIFICATE_EXPIRATION] > 1h30m',
      '500ms > [RESPONSE_TIME]',
      'len([BODY].pods) >= 0b11',
      '3 < 7',
    ]) {
      expect(() => parseCondition(text)).not.toThrow();
    }
  });

  it('accepts two literals, and text compared with ==', () => {
    expect(parseCondition('same == same').left).toMatchObject({
      kind: 'literal',
    });
    expect(parseCondition('len([BODY].name) == short').right).toMatchObject({
      kind: 'literal',
    });
  });

  it.each`
    text                                        | position | reason
    ${''}                                       | ${0}     | ${'the condition is empty'}
    ${'   '}                                    | ${0}     | ${'the condition is empty'}
    ${'[STATUS == 200'}                         | ${0}     | ${'"[" is never closed'}
    ${'len([BODY].pods == 2'}                   | ${3}     | ${'"(" is never closed'}
    ${'[STATUS]) == 200'}                       | ${8}     | ${'")" closes nothing'}
    ${'len([BODY).pods] == 1'}                  | ${9}     | ${'")" closes the "[" opened at position 4'}
    ${'[STAUTS] == 200'}                        | ${0}     | ${'unknown placeholder [STAUTS]'}
    ${'[STATUS] == [CODE]'}                     | ${12}    | ${'unknown placeholder [CODE]'}
    ${'[DOMAIN_EXPIRATION] > 720h'}             | ${0}     | ${'a Gatus placeholder that Vigil does not offer'}
    ${'size([BODY].pods) > 0'}                  | ${0}     | ${'unknown function size()'}
    ${'LEN([BODY].pods) > 0'}                   | ${0}     | ${'unknown function LEN()'}
    ${'[STATUS]==200'}                          | ${8}     | ${'put a space on each side of =='}
    ${'[STATUS] = 200'}                         | ${9}     | ${'unknown operator "="'}
    ${'[STATUS] => 200'}                        | ${9}     | ${'unknown operator "=>"'}
    ${'[STATUS] 200'}                           | ${9}     | ${'missing operator before "200"'}
    ${'[CONNECTED]'}                            | ${11}    | ${'missing operator and value'}
    ${'[STATUS] ==  '}                          | ${11}    | ${'nothing to compare after =='}
    ${'  == 200'}                               | ${2}     | ${'nothing to compare before =='}
    ${'[STATUS] == 200 == 201'}                 | ${16}    | ${'a second =='}
    ${'[RESPONSE_TIME] < 1s and [STATUS] == 2'} | ${16}    | ${'unexpected "< 1s and [STATUS]" after [RESPONSE_TIME]'}
    ${'[RESPONSE_TIME] < fast'}                 | ${18}    | ${'"fast" is not a number or a duration'}
    ${'[RESPONSE_TIME] < 2 seconds'}            | ${18}    | ${'"2 seconds" is not a number or a duration'}
    ${'7days < [CERTIFICATE_EXPIRATION]'}       | ${0}     | ${'"7days" is not a number or a duration'}
    ${'[RESPONSE_TIME] <= 0xZZ'}                | ${19}    | ${'"0xZZ" is not a number'}
    ${'[STATUS] < pat(5*)'}                     | ${11}    | ${'pat() works with == and != only, not <'}
    ${'any(1, 2) >= [STATUS]'}                  | ${0}     | ${'any() works with == and != only'}
    ${'pat(a*) == any(b, c)'}                   | ${11}    | ${'only one side of a comparison can be pat() or any()'}
    ${'[IP] > 10'}                              | ${0}     | ${'[IP] is never a number'}
    ${'has([BODY].pods) > 0'}                   | ${0}     | ${'has([BODY].pods) is never a number'}
    ${'len(200) == 3'}                          | ${4}     | ${'len() takes a placeholder such as [BODY].items, not "200"'}
    ${'has( ) == true'}                         | ${4}     | ${'has() needs a placeholder'}
    ${'len(pat(x)) == 1'}                       | ${4}     | ${'len() takes a placeholder'}
    ${'[STATUS] == any( )'}                     | ${16}    | ${'any() needs at least one value'}
    ${'[STATUS] == any(200,,204)'}              | ${20}    | ${'an empty value in any()'}
    ${'[BODY].pods[first] == 1'}                | ${11}    | ${'an array index is a whole number from 0, as in [0], not [first]'}
    ${'[BODY].pods[-1] == 1'}                   | ${11}    | ${'not [-1]'}
    ${'[BODY].pods[*].ready == true'}           | ${11}    | ${'the [*] wildcard is not supported'}
    ${'[BODY]..pods == 1'}                      | ${6}     | ${'expected a key after "."'}
    ${'[BODY]. == 1'}                           | ${6}     | ${'expected a key after "."'}
    ${'[BODY]pods == 1'}                        | ${6}     | ${'unexpected "pods" after [BODY]'}
    ${'[STATUS].code == 200'}                   | ${8}     | ${'(only [BODY] takes a path)'}
    ${'len([BODY]).pods == 1'}                  | ${11}    | ${'unexpected ".pods" after len([BODY])'}
  `('rejects $text at $position: $reason', ({ text, position, reason }) => {
    const error = parseError(text);
    expect(error.position).toBe(position);
    expect(error.reason).toContain(reason);
  });

  it('names the condition, the position and the reason in the error message', () => {
    const error = parseError('[RESPONSE_TIME] < fast');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConditionParseError');
    expect(error.condition).toBe('[RESPONSE_TIME] < fast');
    expect(error.message).toBe(
      'Invalid condition "[RESPONSE_TIME] < fast" at position 18: "fast" is not' +
        ' a number or a duration (such as 200, 0x1F, 2.5 or 500ms), so < cannot compare it',
    );
  });

  it('refuses a condition longer than 1 KiB before reading it', () => {
    const long = `[BODY].status == ${'x'.repeat(MAX_CONDITION_LENGTH)}`;
    const error = parseError(long);
    expect(error.position).toBe(1024);
    expect(error.reason).toBe(
      `the condition is ${long.length} characters long; at most 1024 are allowed`,
    );
  });

  it('refuses nesting deeper than 16 at the bracket that goes too deep, in linear time', () => {
    const nested = (depth: number) =>
      `${'len('.repeat(depth)}[BODY]${')'.repeat(depth)} == 1`;
    expect(() => parseCondition(nested(15))).toThrow(
      'len() takes a placeholder',
    );
    const error = parseError(nested(100));
    expect(error.position).toBe(17 * 4 - 1);
    expect(error.reason).toBe(
      'brackets and parentheses nest more than 16 deep here',
    );
  });

  it('rejects something that is not text with its own error', () => {
    expect(() => parseCondition(42 as unknown as string)).toThrow(
      ConditionParseError,
    );
    expect(() => parseCondition(undefined as unknown as string)).toThrow(
      'a condition is text, not undefined',
    );
  });
});
