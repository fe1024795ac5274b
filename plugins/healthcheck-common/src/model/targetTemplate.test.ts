import {
  compileTargetTemplate,
  findTargetTemplateProblems,
  RenderedTarget,
  renderTargetTemplate,
  TargetTemplateOptions,
} from './targetTemplate';

const values = { systemName: 'payments', environmentName: 'staging' };
const http = { probeType: 'http' };

function targetOf(rendered: RenderedTarget): string {
  if (!rendered.ok) {
    throw new Error(`refused: ${rendered.reason}`);
  }
  return rendered.target;
}

function reasonOf(rendered: RenderedTarget): string {
  if (rendered.ok) {
    throw new Error(`rendered ${rendered.target}`);
  }
  return rendered.reason;
}

/** Values another team could write: an environment a member adds, a system's name. */
const HOSTILE_VALUES = [
  'evil.example/x?',
  'x@evil.example#',
  'evil.example:443',
  'evil.example',
  'a/../../x',
  '..',
  '%2e%2e',
  '\\\\evil.example',
  '[::1]',
  'a b',
  '',
];

describe('renderTargetTemplate', () => {
  it('replaces the system and environment placeholders, with or without spaces', () => {
    expect(
      renderTargetTemplate(
        'http://127.0.0.1:7010/{{ environment.name }}/{{system.name}}/health',
        values,
        http,
      ),
    ).toEqual({
      ok: true,
      target: 'http://127.0.0.1:7010/staging/payments/health',
    });
  });

  it('replaces every occurrence', () => {
    expect(
      targetOf(
        renderTargetTemplate(
          'https://{{ environment.name }}-{{ system.name }}.example.com/{{ system.name }}?env={{ environment.name }}#{{ system.name }}',
          values,
          http,
        ),
      ),
    ).toBe(
      'https://staging-payments.example.com/payments?env=staging#payments',
    );
  });

  it('leaves a target without placeholders as it is, whatever its type', () => {
    for (const probeType of ['http', 'tcp', 'dns', 'tls', 'grpc', undefined]) {
      expect(
        renderTargetTemplate('tcp://db:5432', values, { probeType }),
      ).toEqual({ ok: true, target: 'tcp://db:5432' });
    }
  });

  it('refuses every slice of a template with an unknown placeholder', () => {
    expect(
      reasonOf(renderTargetTemplate('http://x/{{ region }}', values, http)),
    ).toBe(
      'its target template cannot be used: unknown placeholder "{{ region }}" at position 9; use {{ system.name }} or {{ environment.name }}',
    );
  });
});

describe('an http target', () => {
  const template = 'https://{{ environment.name }}.payments.example.com/health';

  it('keeps the host the template fixes whatever the environment is called', () => {
    const compiled = compileTargetTemplate(template, http);
    expect(compiled.problems).toEqual([]);
    expect(targetOf(compiled.render(values))).toBe(
      'https://staging.payments.example.com/health',
    );
    for (const environmentName of HOSTILE_VALUES) {
      expect(
        reasonOf(compiled.render({ systemName: 'payments', environmentName })),
      ).toContain('is in the host, where a value must be one DNS label');
    }
  });

  it('refuses the two names of the security report, which today reach the attacker', () => {
    const compiled = compileTargetTemplate(template, http);
    expect(
      compiled.render({
        systemName: 'payments',
        environmentName: 'evil.example/x?',
      }),
    ).toEqual({
      ok: false,
      reason:
        'the environment name "evil.example/x?" cannot go into its target: {{ environment.name }} is in the host, where a value must be one DNS label (1 to 63 letters, digits and "-", no "." or "_")',
    });
    expect(
      compiled.render({
        systemName: 'payments',
        environmentName: 'x@evil.example#',
      }).ok,
    ).toBe(false);
  });

  it('writes a system name into a host in lower case, and refuses one with "." or "_", naming it', () => {
    const compiled = compileTargetTemplate(
      'https://{{ system.name }}.internal.example.com/health',
      http,
    );
    expect(
      targetOf(
        compiled.render({ systemName: 'Payments', environmentName: 'x' }),
      ),
    ).toBe('https://payments.internal.example.com/health');
    expect(
      reasonOf(
        compiled.render({ systemName: 'shop.eu', environmentName: 'x' }),
      ),
    ).toMatch(/^the system's name "shop\.eu" cannot go into its target/);
    expect(
      compiled.render({ systemName: 'shop_eu', environmentName: 'x' }).ok,
    ).toBe(false);
  });

  it('percent-encodes a value in the path, the query and the fragment', () => {
    const compiled = compileTargetTemplate(
      'https://status.example.com/{{ system.name }}/health?env={{ environment.name }}#{{ system.name }}',
      http,
    );
    expect(
      targetOf(
        compiled.render({
          systemName: 'x@evil.example#/?',
          environmentName: 'a&b=c d',
        }),
      ),
    ).toBe(
      'https://status.example.com/x%40evil.example%23%2F%3F/health?env=a%26b%3Dc%20d#x%40evil.example%23%2F%3F',
    );
    expect(
      targetOf(
        compiled.render({ systemName: 'shop.eu', environmentName: 'x' }),
      ),
    ).toBe('https://status.example.com/shop.eu/health?env=x#shop.eu');
  });

  it('never lets a value in the path, query or fragment change the scheme or the host', () => {
    const compiled = compileTargetTemplate(
      'https://status.example.com/{{ system.name }}?e={{ environment.name }}#{{ environment.name }}',
      http,
    );
    const wherever = new Set<string>();
    let refused = 0;
    for (const systemName of HOSTILE_VALUES) {
      for (const environmentName of HOSTILE_VALUES) {
        const rendered = compiled.render({ systemName, environmentName });
        if (rendered.ok) {
          const url = new URL(rendered.target);
          wherever.add(`${url.protocol}//${url.host}`);
        } else {
          refused++;
        }
      }
    }
    expect([...wherever]).toEqual(['https://status.example.com']);
    // Only a system named "..", a dot segment in the path, is refused.
    expect(refused).toBe(HOSTILE_VALUES.length);
  });

  it('refuses a value that would be a "." or ".." path segment', () => {
    expect(
      reasonOf(
        renderTargetTemplate(
          'https://status.example.com/{{ system.name }}/health',
          { systemName: '..', environmentName: 'x' },
          http,
        ),
      ),
    ).toBe(
      `the system's name ".." cannot go into its target: it would be a dot segment`,
    );
  });

  it.each([
    [
      'the scheme',
      'http{{ environment.name }}://status.example.com/',
      '{{ environment.name }} at position 4 is in the scheme; write http:// or https:// in the template',
    ],
    [
      'the user name',
      'https://{{ system.name }}@status.example.com/',
      '{{ system.name }} at position 8 is in the user name, where a value could send the probe and its credentials elsewhere; use it in the host or the path',
    ],
    [
      'the password',
      'https://probe:{{ system.name }}@status.example.com/',
      '{{ system.name }} at position 14 is in the password, where a value could send the probe and its credentials elsewhere; use it in the host or the path',
    ],
    [
      'the port',
      'https://status.example.com:{{ environment.name }}/health',
      '{{ environment.name }} at position 27 is in the port; write the port in the template',
    ],
  ])('is a template error with a placeholder in %s', (_, target, problem) => {
    expect(findTargetTemplateProblems(target, http)).toEqual([problem]);
    expect(reasonOf(renderTargetTemplate(target, values, http))).toBe(
      `its target template cannot be used: ${problem}`,
    );
  });

  it.each([
    'https://{{ system.name }}/x',
    'https://{{ environment.name }}.internal/x',
    'https://{{ system.name }}.{{ environment.name }}/x',
    'https://{{ system.name }}.{{ environment.name }}.com/x',
    'https://api.{{ environment.name }}:8443/x',
  ])(
    'refuses %s, whose host a placeholder picks, unless an operator allows it',
    target => {
      const [problem] = findTargetTemplateProblems(target, http);
      expect(problem).toMatch(
        /^the host ".*" is picked by a placeholder, so whoever names a system or an environment could send this probe, with its headers and secrets, to a host of their choosing; end the host with at least 2 labels of your own, as in https:\/\/\{\{ environment.name \}\}.payments.example.com\/health, or move the placeholder into the path \(an operator may allow such hosts with healthcheck.targets.allowPlaceholderHosts\)$/,
      );
      expect(
        findTargetTemplateProblems(target, {
          ...http,
          allowPlaceholderHosts: true,
        }),
      ).toEqual([]);
    },
  );

  it('names the host as written in the reason', () => {
    expect(
      findTargetTemplateProblems(
        'https://{{ environment.name }}.internal/x',
        http,
      )[0],
    ).toMatch(/^the host "\{\{ environment.name \}\}.internal" is picked/);
  });

  it.each([
    'https://{{ environment.name }}.payments.example.com/health',
    'https://api-{{ environment.name }}.example.com/health',
    'https://{{ system.name }}.{{ environment.name }}.example.com./x',
    'HTTPS://{{ environment.name }}.Payments.Example.COM:8443/x',
    'http://127.0.0.1:7010/{{ environment.name }}/{{ system.name }}/health',
  ])('accepts %s without the setting', target => {
    expect(findTargetTemplateProblems(target, http)).toEqual([]);
  });

  it('checks the host after rendering: a value that turns the host into an address is refused', () => {
    const compiled = compileTargetTemplate('https://{{ environment.name }}/', {
      ...http,
      allowPlaceholderHosts: true,
    });
    expect(
      targetOf(compiled.render({ systemName: 's', environmentName: 'db' })),
    ).toBe('https://db/');
    expect(
      reasonOf(
        compiled.render({ systemName: 's', environmentName: '2130706433' }),
      ),
    ).toBe(
      'its target "https://2130706433/" goes to the host "127.0.0.1", not "2130706433"',
    );
  });

  it('refuses a target that is no http or https URL, and a placeholder a dot segment swallows', () => {
    expect(
      findTargetTemplateProblems(
        'ftp://files.example.com/{{ system.name }}',
        http,
      ),
    ).toEqual([
      "an http check's target is an http:// or https:// URL, not ftp:",
    ]);
    expect(
      findTargetTemplateProblems('status.example.com/{{ system.name }}', http),
    ).toEqual([
      '"status.example.com/{{ system.name }}" is not a URL with its placeholders where they are; a placeholder may stand for labels of the host name, or sit in the path, query or fragment',
    ]);
    expect(
      findTargetTemplateProblems(
        'https://x.example.com/{{ system.name }}/../health',
        http,
      ),
    ).toEqual([
      '{{ system.name }} at position 22 lands nowhere once the URL is read (a "." or ".." path segment swallows it); move it',
    ]);
  });

  it('refuses a placeholder in a label with non-ASCII letters', () => {
    expect(
      findTargetTemplateProblems(
        'https://{{ environment.name }}-bücher.shop.example/x',
        http,
      ),
    ).toEqual([
      'the host "xn--{{ environment.name }}-bcher-f3b.shop.example" has a placeholder in a label with non-ASCII letters; put it in a label of its own',
    ]);
  });
});

describe('a tcp or tls target', () => {
  const tcp = { probeType: 'tcp' };

  it('renders host:port and tcp://host:port with the values as host labels', () => {
    expect(
      targetOf(
        renderTargetTemplate(
          'tcp://{{ system.name }}-db.{{ environment.name }}.example.com:5432',
          { systemName: 'Payments', environmentName: 'staging' },
          tcp,
        ),
      ),
    ).toBe('tcp://payments-db.staging.example.com:5432');
    expect(
      targetOf(
        renderTargetTemplate(
          '{{ environment.name }}.payments.example.com',
          values,
          { probeType: 'tls' },
        ),
      ),
    ).toBe('staging.payments.example.com');
  });

  it('refuses a value that is not one label', () => {
    const compiled = compileTargetTemplate(
      '{{ environment.name }}.db.example.com:5432',
      tcp,
    );
    for (const environmentName of HOSTILE_VALUES) {
      expect(compiled.render({ systemName: 's', environmentName }).ok).toBe(
        false,
      );
    }
  });

  it.each<[string, TargetTemplateOptions, string]>([
    [
      'db.example.com:{{ environment.name }}',
      tcp,
      '{{ environment.name }} at position 15 is in the port; write the port in the template',
    ],
    [
      'tcp://db.example.com:5432/{{ system.name }}',
      tcp,
      '"tcp://db.example.com:5432/{{ system.name }}" is not host:port (or tcp://host:port) with a placeholder only in a host name; a tcp target\'s placeholders stand for labels of the host',
    ],
    [
      '[fd00::{{ environment.name }}]:443',
      { probeType: 'tls' },
      '"[fd00::{{ environment.name }}]:443" is not host:port (or tls://host:port) with a placeholder only in a host name; a tls target\'s placeholders stand for labels of the host',
    ],
  ])('refuses %s', (target, options, problem) => {
    expect(findTargetTemplateProblems(target, options)).toEqual([problem]);
  });

  it('refuses a host a placeholder picks unless an operator allows it', () => {
    const target = 'tcp://{{ system.name }}-db.{{ environment.name }}:5432';
    expect(findTargetTemplateProblems(target, tcp)).toHaveLength(1);
    expect(
      findTargetTemplateProblems(target, {
        ...tcp,
        allowPlaceholderHosts: true,
      }),
    ).toEqual([]);
  });
});

describe('a dns target', () => {
  const dns = { probeType: 'dns' };

  it('renders a name whose values are labels', () => {
    expect(
      targetOf(
        renderTargetTemplate(
          '_https._tcp.{{ environment.name }}.payments.example.com',
          values,
          dns,
        ),
      ),
    ).toBe('_https._tcp.staging.payments.example.com');
    expect(
      renderTargetTemplate(
        '{{ environment.name }}.payments.example.com',
        { systemName: 's', environmentName: 'evil.example' },
        dns,
      ).ok,
    ).toBe(false);
  });

  it('refuses a name a placeholder picks, and what is no name', () => {
    expect(
      findTargetTemplateProblems('{{ environment.name }}.internal', dns),
    ).toHaveLength(1);
    expect(
      findTargetTemplateProblems('{{ environment.name }}.internal', {
        ...dns,
        allowPlaceholderHosts: true,
      }),
    ).toEqual([]);
    expect(
      findTargetTemplateProblems('{{ environment.name }}/x.example.com', dns),
    ).toEqual([
      '"{{ environment.name }}/x.example.com" is not a DNS name; a dns target\'s placeholders stand for labels of the name',
    ]);
  });
});

describe('a target of a type Vigil does not know', () => {
  it('takes only values that are one DNS label, as written', () => {
    const compiled = compileTargetTemplate(
      'grpc://{{ system.name }}.example.com/{{ environment.name }}',
      { probeType: 'grpc' },
    );
    expect(compiled.problems).toEqual([]);
    expect(
      targetOf(compiled.render({ systemName: 'Shop', environmentName: 'qa' })),
    ).toBe('grpc://Shop.example.com/qa');
    for (const systemName of HOSTILE_VALUES) {
      expect(compiled.render({ systemName, environmentName: 'qa' }).ok).toBe(
        false,
      );
    }
  });
});

describe('findTargetTemplateProblems', () => {
  it('accepts the two placeholders', () => {
    expect(
      findTargetTemplateProblems(
        'http://{{ system.name }}.{{environment.name}}.example.com',
      ),
    ).toEqual([]);
  });

  it('names an unknown placeholder and where it is', () => {
    expect(findTargetTemplateProblems('http://x/{{ env }}/health')).toEqual([
      'unknown placeholder "{{ env }}" at position 9; use {{ system.name }} or {{ environment.name }}',
    ]);
  });

  it('names a "{{" that is never closed', () => {
    expect(
      findTargetTemplateProblems(
        'http://{{ system.name }}/{{ environment.name',
      ),
    ).toEqual(['"{{" at position 25 is never closed with "}}"']);
  });

  it('is not fooled by a template that holds the word the markers are made of', () => {
    expect(
      targetOf(
        renderTargetTemplate(
          'https://vigil0vigil.example.com/vigil/{{ system.name }}',
          values,
          http,
        ),
      ),
    ).toBe('https://vigil0vigil.example.com/vigil/payments');
  });
});
