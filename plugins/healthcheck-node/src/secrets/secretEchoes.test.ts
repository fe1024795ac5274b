import {
  base64Cores,
  EchoRedactor,
  MIN_DERIVED_FORM_LENGTH,
  secretEchoForms,
} from './secretEchoes';

describe('base64Cores', () => {
  it('holds, at each of the three alignments, the characters the secret alone decides', () => {
    const secret = 'hunter2-hunter2';
    for (const prefix of ['', 'u', 'us', 'usr', 'user:', 'admin:']) {
      const encoded = Buffer.from(`${prefix}${secret}!?`).toString('base64');
      const cores = base64Cores(Buffer.from(secret));
      expect(cores.some(core => encoded.includes(core))).toBe(true);
    }
  });

  it('leaves out the characters shared with the bytes around the secret', () => {
    // After one byte of filler the secret's bits start at bit 8: characters
    // 0 and 1 (bits 0-11) hold filler bits, and of the 56 bits only the
    // first 54 fill whole characters. 'xabcdef!' encodes as eGFiY2RlZiE=.
    expect(base64Cores(Buffer.from('abcdef'))).toEqual([
      'YWJjZGVm',
      'FiY2RlZ',
      'hYmNkZW',
    ]);
    expect(Buffer.from('xabcdef!').toString('base64')).toContain('FiY2RlZ');
    expect(Buffer.from('xyabcdef').toString('base64')).toContain('hYmNkZW');
  });
});

describe('secretEchoForms', () => {
  it('lists every form a server may echo a secret in, each once', () => {
    const forms = secretEchoForms('Pa$$ "w<rd>"');
    expect(forms).toEqual(
      expect.arrayContaining([
        'Pa$$ "w<rd>"',
        'Pa%24%24%20%22w%3Crd%3E%22',
        'Pa$$ \\"w<rd>\\"',
        'PA$$ "W<RD>"',
        'pa$$ "w<rd>"',
        'Pa$$ &quot;w&lt;rd&gt;&quot;',
        'Pa$$ &#34;w&lt;rd&gt;&#34;',
        'Pa$$ "w&lt;rd&gt;"',
        '506124242022773c72643e22',
        '506124242022773C72643E22',
        'UGEkJCAidzxyZD4i',
      ]),
    );
    expect(new Set(forms).size).toBe(forms.length);
  });

  it(`derives no form shorter than ${MIN_DERIVED_FORM_LENGTH} characters, so a short secret does not blank common text`, () => {
    expect(secretEchoForms('ab')).toEqual(['ab']);
    expect(secretEchoForms('a b')).toEqual(['a b', 'a%20b']);
    // Of a 4-character secret only hex and padded base64 reach 8.
    expect(secretEchoForms('abcz')).toEqual([
      'abcz',
      '6162637a',
      '6162637A',
      'YWJjeg==',
    ]);
  });

  it('has nothing to redact for an empty value', () => {
    expect(secretEchoForms('')).toEqual([]);
  });
});

describe('EchoRedactor', () => {
  const redactor = new EchoRedactor([
    's3cr3t-token',
    'abc',
    'abcdef',
    'cdefgh',
  ]);

  it('replaces every occurrence of every form', () => {
    expect(
      redactor.redact('a s3cr3t-token, another s3cr3t-token.', '***'),
    ).toBe('a ***, another ***.');
  });

  it('covers overlapping finds with one placeholder, leaving no part visible', () => {
    expect(redactor.redact('xabcdefghx abc', '***')).toBe('x***x ***');
  });

  it('returns a text without finds unchanged', () => {
    const text = 'nothing to see, ab cd ef';
    expect(redactor.redact(text, '***')).toBe(text);
  });

  it('compares the rest of a form longer than what the automaton holds', () => {
    const long = `${'k'.repeat(40)}-end`;
    const longRedactor = new EchoRedactor([long]);
    expect(longRedactor.redact(`<${'k'.repeat(40)}-nope>`, '***')).toBe(
      `<${'k'.repeat(40)}-nope>`,
    );
    expect(longRedactor.redact(`<${long}>`, '***')).toBe('<***>');
    // Forms that share their first characters are told apart.
    const twins = new EchoRedactor([
      `${'k'.repeat(40)}-a`,
      `${'k'.repeat(40)}-b`,
    ]);
    expect(twins.redact(`${'k'.repeat(40)}-b!`, '#')).toBe('#!');
  });

  it('finds forms with characters outside ASCII', () => {
    expect(new EchoRedactor(['pässwört🔑']).redact('[pässwört🔑]', '*')).toBe(
      '[*]',
    );
  });

  it('has nothing to do without forms', () => {
    const empty = new EchoRedactor([]);
    expect(empty.isEmpty).toBe(true);
    expect(empty.redact('text', '***')).toBe('text');
  });
});
