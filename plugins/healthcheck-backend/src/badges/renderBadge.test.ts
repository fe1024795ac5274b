import { renderBadgeSvg, toShieldsEndpoint } from './renderBadge';

describe('renderBadgeSvg', () => {
  it('draws an SVG that says the label and message in text, not colour alone', () => {
    const svg = renderBadgeSvg({
      label: 'payments production',
      message: 'unhealthy, 2/5 ok',
      color: 'red',
    });
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain(
      'aria-label="payments production: unhealthy, 2/5 ok"',
    );
    expect(svg).toContain(
      '<title>payments production: unhealthy, 2/5 ok</title>',
    );
    expect(svg).toContain('>unhealthy, 2/5 ok</text>');
  });

  it('escapes the text', () => {
    const svg = renderBadgeSvg({
      label: '<script>alert(1)</script>',
      message: 'a & b',
      color: 'grey',
    });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('a &amp; b');
  });

  it('draws each style', () => {
    const content = {
      label: 'payments',
      message: 'healthy',
      color: 'brightgreen' as const,
    };
    const flat = renderBadgeSvg(content);
    const forTheBadge = renderBadgeSvg(content, 'for-the-badge');
    expect(renderBadgeSvg(content, 'flat')).toBe(flat);
    expect(forTheBadge).not.toBe(flat);
    // for-the-badge writes the text in capitals.
    expect(forTheBadge).toContain('HEALTHY');
  });
});

describe('toShieldsEndpoint', () => {
  it('is shields.io endpoint JSON, with the style when one is asked for', () => {
    const content = {
      label: 'payments',
      message: 'degraded, 4/5 ok',
      color: 'yellow' as const,
    };
    expect(toShieldsEndpoint(content)).toEqual({
      schemaVersion: 1,
      label: 'payments',
      message: 'degraded, 4/5 ok',
      color: 'yellow',
    });
    expect(toShieldsEndpoint(content, 'flat-square')).toEqual({
      schemaVersion: 1,
      label: 'payments',
      message: 'degraded, 4/5 ok',
      color: 'yellow',
      style: 'flat-square',
    });
  });
});
