import {
  compileTargetTemplate,
  findTargetTemplateProblems,
  renderTargetTemplate,
} from './targetTemplate';

const values = { systemName: 'payments', environmentName: 'staging' };

describe('renderTargetTemplate', () => {
  it('replaces the system and environment placeholders, with or without spaces', () => {
    expect(
      renderTargetTemplate(
        'http://127.0.0.1:7010/{{ environment.name }}/{{system.name}}/health',
        values,
      ),
    ).toBe('http://127.0.0.1:7010/staging/payments/health');
  });

  it('replaces every occurrence', () => {
    expect(
      renderTargetTemplate(
        'https://{{ system.name }}.{{ environment.name }}.example.com/{{ system.name }}',
        values,
      ),
    ).toBe('https://payments.staging.example.com/payments');
  });

  it('leaves a target without placeholders, and unknown placeholders, as they are', () => {
    expect(renderTargetTemplate('tcp://db:5432', values)).toBe('tcp://db:5432');
    expect(renderTargetTemplate('http://x/{{ region }}', values)).toBe(
      'http://x/{{ region }}',
    );
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
});

describe('compileTargetTemplate', () => {
  it('renders what renderTargetTemplate renders, for any values', () => {
    const templates = [
      'tcp://db:5432',
      '{{ system.name }}',
      'x{{environment.name}}y{{ system.name }}z{{ unknown }}',
      'https://{{ system.name }}.{{ environment.name }}.example.com/{{ system.name }}',
      '{{ system.name',
    ];
    for (const template of templates) {
      const compiled = compileTargetTemplate(template);
      for (const [systemName, environmentName] of [
        ['shop', 'production'],
        ['', ''],
        ['$&', '$1'],
      ]) {
        expect(compiled({ systemName, environmentName })).toBe(
          template
            .split(/\{\{\s*system\.name\s*\}\}/)
            .join(systemName)
            .split(/\{\{\s*environment\.name\s*\}\}/)
            .join(environmentName),
        );
      }
    }
  });
});
