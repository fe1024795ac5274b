import { envToSecretReferences, findEnvReferences } from './envReferences';

describe('envToSecretReferences', () => {
  it('turns both forms Gatus expands into secret references, and $$ into $', () => {
    expect(envToSecretReferences('Bearer ${TOKEN}, $USER and $$5')).toEqual({
      text: 'Bearer ${secret:TOKEN}, ${secret:USER} and $5',
      secrets: ['TOKEN', 'USER'],
    });
  });

  it('leaves text without references as it is', () => {
    expect(envToSecretReferences('{"a": 1} costs 5$')).toEqual({
      text: '{"a": 1} costs 5$',
      secrets: [],
    });
  });
});

describe('findEnvReferences', () => {
  it('names each variable once, in order', () => {
    expect(findEnvReferences('https://${HOST}:$PORT/${HOST}')).toEqual([
      'HOST',
      'PORT',
    ]);
  });
});
