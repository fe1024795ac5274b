import { gitUrlOfLocation } from './gitUrlOfLocation';

describe('gitUrlOfLocation', () => {
  it('reads a url location, and nothing else', () => {
    expect(gitUrlOfLocation('url:https://git.example/a.yaml')).toBe(
      'https://git.example/a.yaml',
    );
    expect(gitUrlOfLocation('file:/tmp/a.yaml')).toBeUndefined();
    expect(gitUrlOfLocation(undefined)).toBeUndefined();
  });
});
