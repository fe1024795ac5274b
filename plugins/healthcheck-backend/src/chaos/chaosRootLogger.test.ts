import { createChaosRootLogger } from './chaosRootLogger';

function recording() {
  const lines: string[] = [];
  const transitions: string[] = [];
  const logger = createChaosRootLogger({
    log: line => lines.push(line),
    transition: message => transitions.push(message),
  });
  return { logger, lines, transitions };
}

describe('createChaosRootLogger', () => {
  it("hands the plugin's transitions to the suite, and logs them", () => {
    const { logger, lines, transitions } = recording();
    logger
      .child({ plugin: 'healthcheck' })
      .child({ component: 'transitions' })
      .info('system:default/alpha in production: healthy -> unhealthy');
    expect(transitions).toEqual([
      'system:default/alpha in production: healthy -> unhealthy',
    ]);
    expect(lines).toEqual([
      expect.stringMatching(
        / info plugin=healthcheck,component=transitions system:default\/alpha in production: healthy -> unhealthy$/,
      ),
    ]);
  });

  it('logs warnings and errors with what came with them, and no other info or debug line', () => {
    const { logger, lines, transitions } = recording();
    const outbox = logger.child({ plugin: 'healthcheck', component: 'outbox' });
    outbox.info('Delivered 3 entries');
    outbox.debug('claimed');
    logger.child({ plugin: 'notifications' }).info('a request');
    outbox.warn('Could not deliver', new Error('503 Service Unavailable'));
    outbox.error('Dropped 1 entry', { stream: 'alpha' });
    expect(transitions).toEqual([]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\S+Z warn plugin=healthcheck,component=outbox Could not deliver Error: 503 Service Unavailable/,
    );
    expect(lines[1]).toMatch(
      /error plugin=healthcheck,component=outbox Dropped 1 entry \{ stream: 'alpha' \}$/,
    );
  });
});
