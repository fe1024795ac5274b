import { ConditionParseError } from './ConditionParseError';
import { evaluateCondition } from './evaluateCondition';
import { parseCondition } from './parseCondition';
import { ConditionContext } from './types';

const service = JSON.stringify({
  service: { name: 'orders', state: 'ready', replicas: 3, paused: false },
  nodes: [
    { host: 'n1', zone: 'eu-1' },
    { host: 'n2', zone: 'eu-2' },
  ],
  grid: [
    [1, 2],
    [3, 4, 5],
  ],
  tags: ['stable', 'canary'],
  lastError: null,
  warnings: [],
});

interface Row {
  condition: string;
  context: ConditionContext;
  success: boolean;
  display: string;
}

/** The rows the evaluator disagrees with, each with what it said. */
function mismatches(rows: Row[]) {
  return rows.flatMap(row => {
    const got = evaluateCondition(row.condition, row.context);
    return got.success === row.success && got.display === row.display
      ? []
      : [
          {
            condition: row.condition,
            want: { success: row.success, display: row.display },
            got,
          },
        ];
  });
}

describe('evaluateCondition', () => {
  it('shows a condition that holds as written, and one that fails with its values', () => {
    expect(
      mismatches([
        {
          condition: '[STATUS] == 204',
          context: { status: 204 },
          success: true,
          display: '[STATUS] == 204',
        },
        {
          condition: '[STATUS] == 204',
          context: { status: 503 },
          success: false,
          display: '[STATUS] (503) == 204',
        },
        {
          condition: '[STATUS]   ==\t204',
          context: { status: 204 },
          success: true,
          display: '[STATUS]   ==\t204',
        },
        {
          condition: '[STATUS]   ==\t204',
          context: { status: 503 },
          success: false,
          display: '[STATUS] (503) == 204',
        },
        {
          condition: '[status] != 503',
          context: { status: 503 },
          success: false,
          display: '[status] (503) != 503',
        },
        {
          condition: 'alpha == beta',
          context: {},
          success: false,
          display: 'alpha == beta',
        },
        { condition: '7 > 3', context: {}, success: true, display: '7 > 3' },
      ]),
    ).toEqual([]);
  });

  it('resolves every placeholder', () => {
    expect(
      mismatches([
        {
          condition: '[STATUS] >= 500',
          context: { status: 502 },
          success: true,
          display: '[STATUS] >= 500',
        },
        {
          condition: '[STATUS] < 400',
          context: { status: 418 },
          success: false,
          display: '[STATUS] (418) < 400',
        },
        {
          condition: '[RESPONSE_TIME] < 300',
          context: { responseTimeMs: 120.8 },
          success: true,
          display: '[RESPONSE_TIME] < 300',
        },
        // Whole milliseconds, as Gatus counts them.
        {
          condition: '[RESPONSE_TIME] < 300',
          context: { responseTimeMs: 300.4 },
          success: false,
          display: '[RESPONSE_TIME] (300) < 300',
        },
        {
          condition: '[IP] == 192.168.4.20',
          context: { ip: '192.168.4.20' },
          success: true,
          display: '[IP] == 192.168.4.20',
        },
        {
          condition: '[IP] == 192.168.4.20',
          context: { ip: '' },
          success: false,
          display: '[IP] () == 192.168.4.20',
        },
        {
          condition: '[CONNECTED] == false',
          context: { connected: false },
          success: true,
          display: '[CONNECTED] == false',
        },
        {
          condition: '[CONNECTED] == true',
          context: { connected: false },
          success: false,
          display: '[CONNECTED] (false) == true',
        },
        {
          condition: '[DNS_RCODE] == NOERROR',
          context: { dnsRcode: 'NXDOMAIN' },
          success: false,
          display: '[DNS_RCODE] (NXDOMAIN) == NOERROR',
        },
        {
          condition: '[BODY] == pong',
          context: { body: '  pong\n' },
          success: true,
          display: '[BODY] == pong',
        },
        {
          condition: '[BODY] == pong',
          context: { body: 'ping' },
          success: false,
          display: '[BODY] (ping) == pong',
        },
      ]),
    ).toEqual([]);
  });

  it('shows the time left on a certificate as a duration when ordering, as Gatus does', () => {
    const tenDays = 10 * 24 * 3_600_000;
    expect(
      mismatches([
        {
          condition: '[CERTIFICATE_EXPIRATION] > 168h',
          context: { certificateExpirationMs: tenDays },
          success: true,
          display: '[CERTIFICATE_EXPIRATION] > 168h',
        },
        {
          condition: '[CERTIFICATE_EXPIRATION] > 720h',
          context: { certificateExpirationMs: tenDays },
          success: false,
          display: '[CERTIFICATE_EXPIRATION] (240h) > 720h',
        },
        {
          condition: '[CERTIFICATE_EXPIRATION] > 864000001',
          context: { certificateExpirationMs: tenDays },
          success: false,
          display: '[CERTIFICATE_EXPIRATION] (240h) > 864000001',
        },
        {
          condition: '[CERTIFICATE_EXPIRATION] > 0',
          context: { certificateExpirationMs: -5_400_000 },
          success: false,
          display: '[CERTIFICATE_EXPIRATION] (-1h30m) > 0',
        },
        // With == Gatus shows the milliseconds.
        {
          condition: '[CERTIFICATE_EXPIRATION] == 0',
          context: { certificateExpirationMs: 90_000 },
          success: false,
          display: '[CERTIFICATE_EXPIRATION] (90000) == 0',
        },
      ]),
    ).toEqual([]);
  });

  it('reads [BODY] paths through objects and arrays', () => {
    expect(
      mismatches([
        {
          condition: '[BODY].service.state == ready',
          context: { body: service },
          success: true,
          display: '[BODY].service.state == ready',
        },
        {
          condition: '[BODY].service.replicas >= 3',
          context: { body: service },
          success: true,
          display: '[BODY].service.replicas >= 3',
        },
        {
          condition: '[BODY].service.paused == false',
          context: { body: service },
          success: true,
          display: '[BODY].service.paused == false',
        },
        {
          condition: '[BODY].nodes[1].zone == eu-2',
          context: { body: service },
          success: true,
          display: '[BODY].nodes[1].zone == eu-2',
        },
        {
          condition: '[BODY].grid[1][2] == 5',
          context: { body: service },
          success: true,
          display: '[BODY].grid[1][2] == 5',
        },
        {
          condition: '[BODY][1].up == yes',
          context: { body: '[{"up":"no"},{"up":"yes"}]' },
          success: true,
          display: '[BODY][1].up == yes',
        },
        {
          condition: '[BODY].nodes[0].host == [BODY].nodes[1].host',
          context: { body: service },
          success: false,
          display: '[BODY].nodes[0].host (n1) == [BODY].nodes[1].host (n2)',
        },
        {
          condition: '[BODY].nodes[0].host != [BODY].nodes[1].host',
          context: { body: service },
          success: true,
          display: '[BODY].nodes[0].host != [BODY].nodes[1].host',
        },
      ]),
    ).toEqual([]);
  });

  it('shows objects and arrays as compact JSON', () => {
    expect(
      mismatches([
        {
          condition: '[BODY].tags == none',
          context: { body: service },
          success: false,
          display: '[BODY].tags (["stable","canary"]) == none',
        },
        {
          condition: '[BODY].nodes[0] == none',
          context: { body: service },
          success: false,
          display: '[BODY].nodes[0] ({"host":"n1","zone":"eu-1"}) == none',
        },
        {
          condition: '[BODY].tags == pat(*canary*)',
          context: { body: service },
          success: true,
          display: '[BODY].tags == pat(*canary*)',
        },
      ]),
    ).toEqual([]);
  });

  it('resolves a path that leads nowhere to INVALID, which equals nothing and orders with nothing', () => {
    const failing = (
      condition: string,
      body: string,
      display: string,
    ): Row => ({
      condition,
      context: { body },
      success: false,
      display,
    });
    expect(
      mismatches([
        failing(
          '[BODY].service.owner == ops',
          service,
          '[BODY].service.owner (INVALID) == ops',
        ),
        failing(
          '[BODY].lastError == none',
          service,
          '[BODY].lastError (INVALID) == none',
        ),
        failing(
          '[BODY].nodes[2].host == n3',
          service,
          '[BODY].nodes[2].host (INVALID) == n3',
        ),
        failing(
          '[BODY].service[0] == x',
          service,
          '[BODY].service[0] (INVALID) == x',
        ),
        failing(
          '[BODY].nodes.host == n1',
          service,
          '[BODY].nodes.host (INVALID) == n1',
        ),
        failing(
          '[BODY].service.name.first == o',
          service,
          '[BODY].service.name.first (INVALID) == o',
        ),
        failing(
          '[BODY].service.replicas.max == 3',
          service,
          '[BODY].service.replicas.max (INVALID) == 3',
        ),
        failing(
          '[BODY].state == up',
          'state=up',
          '[BODY].state (INVALID) == up',
        ),
        failing(
          '[BODY].state == up',
          '{"state":"up"',
          '[BODY].state (INVALID) == up',
        ),
        failing(
          '[BODY].queue.depth < 10',
          service,
          '[BODY].queue.depth (INVALID) < 10',
        ),
        failing(
          '[BODY].a == [BODY].b',
          '{}',
          '[BODY].a (INVALID) == [BODY].b (INVALID)',
        ),
        failing(
          '[BODY].state == pat(*)',
          '{}',
          '[BODY].state (INVALID) == pat(*)',
        ),
        failing(
          '[BODY].state == any(up, down)',
          '{}',
          '[BODY].state (INVALID) == any(up, down)',
        ),
      ]),
    ).toEqual([]);
    expect(
      mismatches([
        {
          condition: '[BODY].service.owner != ops',
          context: { body: service },
          success: true,
          display: '[BODY].service.owner != ops',
        },
      ]),
    ).toEqual([]);
  });

  it('resolves what the probe did not observe to INVALID', () => {
    expect(
      mismatches([
        {
          condition: '[STATUS] == 200',
          context: {},
          success: false,
          display: '[STATUS] (INVALID) == 200',
        },
        {
          condition: '[RESPONSE_TIME] < 100',
          context: {},
          success: false,
          display: '[RESPONSE_TIME] (INVALID) < 100',
        },
        {
          condition: '[CONNECTED] == true',
          context: {},
          success: false,
          display: '[CONNECTED] (INVALID) == true',
        },
        {
          condition: '[BODY] == ok',
          context: {},
          success: false,
          display: '[BODY] (INVALID) == ok',
        },
        {
          condition: '[IP] == pat(10.*)',
          context: {},
          success: false,
          display: '[IP] (INVALID) == pat(10.*)',
        },
      ]),
    ).toEqual([]);
  });

  it('compares numbers as numbers, whatever their notation', () => {
    const body = JSON.stringify({
      count: 10,
      mask: '0xff',
      mode: 420,
      ratio: 0.5,
      load: 1.49,
      total: 1000,
      label: 'v1.10',
    });
    const holds = (condition: string): Row => ({
      condition,
      context: { body },
      success: true,
      display: condition,
    });
    expect(
      mismatches([
        holds('[BODY].count == 0x0A'),
        holds('[BODY].mask == 255'),
        holds('[BODY].mask > 0b11111110'),
        holds('[BODY].mode == 0o644'),
        holds('[BODY].count == 0b1010'),
        holds('[BODY].total == 1_000'),
        holds('[BODY].total == 1e3'),
        holds('[BODY].ratio == 0.50'),
        holds('[BODY].ratio > 0.25'),
        // Gatus would cut 1.49 to 1 and 1.5 to 1, and find them equal.
        holds('[BODY].load < 1.5'),
        holds('[BODY].count != 010.5'),
      ]),
    ).toEqual([]);
    expect(
      mismatches([
        {
          condition: '[BODY].label == v1.1',
          context: { body },
          success: false,
          display: '[BODY].label (v1.10) == v1.1',
        },
        {
          condition: '[BODY].count < 10',
          context: { body },
          success: false,
          display: '[BODY].count (10) < 10',
        },
      ]),
    ).toEqual([]);
  });

  it('keeps integers beyond 2^53 exact', () => {
    const body = '{"id": 98765432109876543211, "price": 1.0}';
    expect(
      mismatches([
        {
          condition: '[BODY].id == 98765432109876543211',
          context: { body },
          success: true,
          display: '[BODY].id == 98765432109876543211',
        },
        {
          condition: '[BODY].id == 98765432109876543210',
          context: { body },
          success: false,
          display: '[BODY].id (98765432109876543211) == 98765432109876543210',
        },
        {
          condition: '[BODY].id > 98765432109876543210',
          context: { body },
          success: true,
          display: '[BODY].id > 98765432109876543210',
        },
        {
          condition: '[BODY].price == none',
          context: { body },
          success: false,
          display: '[BODY].price (1.0) == none',
        },
      ]),
    ).toEqual([]);
  });

  it('reads durations as milliseconds', () => {
    expect(
      mismatches([
        {
          condition: '[RESPONSE_TIME] <= 1.5s',
          context: { responseTimeMs: 1500 },
          success: true,
          display: '[RESPONSE_TIME] <= 1.5s',
        },
        {
          condition: '[RESPONSE_TIME] < 250ms',
          context: { responseTimeMs: 251 },
          success: false,
          display: '[RESPONSE_TIME] (251) < 250ms',
        },
        {
          condition: '[BODY].uptime > 1h',
          context: { body: '{"uptime":"90m"}' },
          success: true,
          display: '[BODY].uptime > 1h',
        },
        {
          condition: '[BODY].uptime == 5400s',
          context: { body: '{"uptime":"1h30m"}' },
          success: true,
          display: '[BODY].uptime == 5400s',
        },
        {
          condition: '[RESPONSE_TIME] == 2s',
          context: { responseTimeMs: 2000 },
          success: true,
          display: '[RESPONSE_TIME] == 2s',
        },
      ]),
    ).toEqual([]);
  });

  it('fails an ordering whose value is not a number, showing the value', () => {
    expect(
      mismatches([
        {
          condition: '[BODY].state < 10',
          context: { body: '{"state":"ready"}' },
          success: false,
          display: '[BODY].state (ready) < 10',
        },
        {
          condition: '[BODY] >= 0',
          context: { body: 'n/a' },
          success: false,
          display: '[BODY] (n/a) >= 0',
        },
      ]),
    ).toEqual([]);
  });

  it('counts with len(): elements of arrays, characters of everything else', () => {
    const holds = (condition: string, body: string): Row => ({
      condition,
      context: { body },
      success: true,
      display: condition,
    });
    expect(
      mismatches([
        holds('len([BODY].nodes) == 2', service),
        holds('len([BODY].warnings) == 0', service),
        holds('len([BODY].service.name) == 6', service),
        holds('len([BODY].service.replicas) == 1', service),
        holds('len([BODY].service.paused) == 5', service),
        holds('len([BODY].nodes[0]) == 27', service),
        holds('len([BODY]) == 3', '[{"a":1},{"b":2},{"c":3}]'),
        holds('len([BODY]) == 7', 'healthy'),
        holds('len([BODY]) == 9', ' [broken '),
        holds('len([BODY].city) == 4', '{"city":"Köln"}'),
        holds('len([BODY].mood) == 2', '{"mood":"👍🏽"}'),
      ]),
    ).toEqual([]);
    expect(
      mismatches([
        {
          condition: 'len([BODY].missing) == 0',
          context: { body: service },
          success: false,
          display: 'len([BODY].missing) (INVALID) == 0',
        },
        {
          condition: 'len([BODY].nodes) > 2',
          context: { body: service },
          success: false,
          display: 'len([BODY].nodes) (2) > 2',
        },
        {
          condition: 'len([IP]) == 8',
          context: { ip: '10.0.0.7' },
          success: true,
          display: 'len([IP]) == 8',
        },
        {
          condition: 'len([STATUS]) == 3',
          context: {},
          success: false,
          display: 'len([STATUS]) (INVALID) == 3',
        },
      ]),
    ).toEqual([]);
  });

  it('tells with has() whether a value is there', () => {
    expect(
      mismatches([
        {
          condition: 'has([BODY].errors) == false',
          context: { body: '{}' },
          success: true,
          display: 'has([BODY].errors) == false',
        },
        {
          condition: 'has([BODY].errors) == false',
          context: { body: '{"errors":["disk"]}' },
          success: false,
          display: 'has([BODY].errors) (true) == false',
        },
        {
          condition: 'has([BODY].lastError) == false',
          context: { body: service },
          success: true,
          display: 'has([BODY].lastError) == false',
        },
        {
          condition: 'has([BODY].warnings) == true',
          context: { body: service },
          success: true,
          display: 'has([BODY].warnings) == true',
        },
        {
          condition: 'has([BODY].state) == false',
          context: { body: 'not json' },
          success: true,
          display: 'has([BODY].state) == false',
        },
        {
          condition: 'has([BODY]) == true',
          context: { body: ' \n ' },
          success: false,
          display: 'has([BODY]) (false) == true',
        },
        {
          condition: 'has([IP]) == true',
          context: { ip: '' },
          success: false,
          display: 'has([IP]) (false) == true',
        },
        {
          condition: 'has([DNS_RCODE]) == false',
          context: {},
          success: true,
          display: 'has([DNS_RCODE]) == false',
        },
      ]),
    ).toEqual([]);
  });

  it('matches pat() wildcards on either side, cutting long values at 25 characters', () => {
    const page = `<html><body><p id="state">degraded</p>${'x'.repeat(
      500,
    )}</body></html>`;
    expect(
      mismatches([
        {
          condition: '[BODY].service.name == pat(ord*)',
          context: { body: service },
          success: true,
          display: '[BODY].service.name == pat(ord*)',
        },
        {
          condition: '[STATUS] == pat(2??)',
          context: { status: 207 },
          success: true,
          display: '[STATUS] == pat(2??)',
        },
        {
          condition: 'pat(5*) != [STATUS]',
          context: { status: 503 },
          success: false,
          display: 'pat(5*) != [STATUS] (503)',
        },
        {
          condition: '[BODY] == pat(*"state":"ready"*)',
          context: { body: service },
          success: true,
          display: '[BODY] == pat(*"state":"ready"*)',
        },
        {
          condition: '[BODY] == pat(*<p id="state">ok</p>*)',
          context: { body: page },
          success: false,
          display:
            '[BODY] (<html><body><p id="state"...(truncated)) == pat(*<p id="state">ok</p>*)',
        },
        {
          condition: 'pat(*>ok<*) == [BODY]',
          context: { body: page },
          success: false,
          display:
            'pat(*>ok<*) == [BODY] (<html><body><p id="state"...(truncated))',
        },
      ]),
    ).toEqual([]);
  });

  it('cuts other long values at 100 characters, unlike Gatus', () => {
    const body = `ERROR ${'-'.repeat(200)}`;
    const { display } = evaluateCondition('[BODY] == OK', { body });
    expect(display).toBe(
      `[BODY] (ERROR ${'-'.repeat(94)}...(truncated)) == OK`,
    );
  });

  it('matches any() option by option, numbers as numbers', () => {
    expect(
      mismatches([
        {
          condition: '[BODY].service.state == any(ready, degraded)',
          context: { body: service },
          success: true,
          display: '[BODY].service.state == any(ready, degraded)',
        },
        {
          condition: 'any(ready, degraded) != [BODY].service.state',
          context: { body: service },
          success: false,
          display: 'any(ready, degraded) != [BODY].service.state (ready)',
        },
        {
          condition: '[STATUS] == any(200, 0xCC)',
          context: { status: 204 },
          success: true,
          display: '[STATUS] == any(200, 0xCC)',
        },
        {
          condition: '[STATUS] == any(200, 204)',
          context: { status: 500 },
          success: false,
          display: '[STATUS] (500) == any(200, 204)',
        },
      ]),
    ).toEqual([]);
  });

  it('reads the DNS answers as the body, one a line, when there is no body', () => {
    expect(
      mismatches([
        {
          condition: '[BODY] == 10.1.2.3',
          context: { dnsAnswers: ['10.1.2.3'] },
          success: true,
          display: '[BODY] == 10.1.2.3',
        },
        {
          condition: '[BODY] == pat(*10.1.2.4*)',
          context: { dnsAnswers: ['10.1.2.3', '10.1.2.4'] },
          success: true,
          display: '[BODY] == pat(*10.1.2.4*)',
        },
        {
          condition: '[BODY] == 10.1.2.3',
          context: { dnsAnswers: [] },
          success: false,
          display: '[BODY] () == 10.1.2.3',
        },
        {
          condition: '[BODY] == 10.1.2.3',
          context: { body: 'own', dnsAnswers: ['10.1.2.3'] },
          success: false,
          display: '[BODY] (own) == 10.1.2.3',
        },
      ]),
    ).toEqual([]);
  });

  it('takes a body already parsed, or as bytes', () => {
    expect(
      mismatches([
        {
          condition: '[BODY].pods[0].ready == true',
          context: { body: { pods: [{ ready: true }] } },
          success: true,
          display: '[BODY].pods[0].ready == true',
        },
        {
          condition: '[BODY] == pat(*"ready":false*)',
          context: { body: { pods: [{ ready: true }] } },
          success: false,
          display: '[BODY] ({"pods":[{"ready":true}]}) == pat(*"ready":false*)',
        },
        {
          condition: '[BODY].state == ready',
          context: { body: new TextEncoder().encode('{"state":"ready"}') },
          success: true,
          display: '[BODY].state == ready',
        },
      ]),
    ).toEqual([]);
  });

  it('evaluates one parsed condition against many contexts', () => {
    const condition = parseCondition('[STATUS] == any(200, 204)');
    expect(evaluateCondition(condition, { status: 204 }).success).toBe(true);
    expect(evaluateCondition(condition, { status: 404 }).success).toBe(false);
  });

  it('throws ConditionParseError for a malformed condition given as text', () => {
    expect(() =>
      evaluateCondition('[RESPONSE_TIME] < soon', { responseTimeMs: 1 }),
    ).toThrow(ConditionParseError);
  });
});
