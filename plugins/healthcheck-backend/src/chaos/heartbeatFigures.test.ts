import type { SentNotification } from './chaosFigures';
import {
  heartbeatFigures,
  heartbeatReport,
  type PingAnswer,
  scenarioHeartbeat,
} from './heartbeatFigures';

const FROM = 1_000_000;
const TO = FROM + 60_000;

const answer = (at: number, status: number): PingAnswer => ({
  at,
  environment: 'production',
  instance: 'chaos-a',
  status,
});
const run = (scheduledAt: number, status: string) => ({
  environment: 'production',
  scheduledAt,
  status,
});
const sent = (at: number, system: string): SentNotification => ({
  at,
  system,
  environment: 'production',
  kind: 'unhealthy',
  instance: 'chaos-b',
});

describe('heartbeatFigures', () => {
  it('finds nothing wrong with a heartbeat pinged and healthy throughout, its pings kept while the database was away', () => {
    expect(
      heartbeatFigures({
        system: 'echo',
        from: FROM,
        to: TO,
        answers: [
          answer(FROM + 1_000, 200),
          answer(FROM + 2_000, 202),
          answer(FROM + 3_000, 200),
        ],
        runs: [
          run(FROM - 5_000, 'healthy'),
          run(FROM + 5_000, 'healthy'),
          run(FROM + 10_000, 'healthy'),
        ],
        notifications: [sent(FROM + 1_000, 'alpha')],
      }),
    ).toEqual({
      pings: 3,
      journaled: 1,
      refused: [],
      transitions: [],
      notified: [],
    });
  });

  it('counts the pings not taken, the status changes in the window and the notifications of its system', () => {
    const figures = heartbeatFigures({
      system: 'echo',
      from: FROM,
      to: TO,
      answers: [
        answer(FROM - 1_000, 500),
        answer(FROM + 1_000, 500),
        answer(FROM + 2_000, 0),
      ],
      runs: [
        run(FROM - 5_000, 'healthy'),
        run(FROM + 10_000, 'unhealthy'),
        run(FROM + 20_000, 'healthy'),
        run(TO + 5_000, 'unhealthy'),
      ],
      notifications: [sent(FROM + 12_000, 'echo'), sent(TO + 1_000, 'echo')],
    });
    expect(figures.refused).toEqual([
      'production chaos-a: 500',
      'production chaos-a: no answer',
    ]);
    expect(figures.transitions).toEqual([
      `production: healthy -> unhealthy @${new Date(
        FROM + 10_000,
      ).toISOString()}`,
      `production: unhealthy -> healthy @${new Date(
        FROM + 20_000,
      ).toISOString()}`,
    ]);
    expect(figures.notified).toEqual(['production unhealthy']);
  });

  it('judges a scenario from its fault to its end, and none without a fault', () => {
    const timeline = {
      name: 'db-drop',
      from: FROM - 5_000,
      to: TO,
      faults: [{ phase: 'outage' as const, from: FROM, to: FROM + 30_000 }],
      takeovers: [],
      kills: [],
    };
    const figures = scenarioHeartbeat({
      system: 'echo',
      timeline,
      answers: [answer(FROM - 2_000, 500), answer(FROM + 2_000, 202)],
      runs: [],
      notifications: [],
    });
    expect(figures).toMatchObject({ pings: 1, journaled: 1, refused: [] });
    expect(
      scenarioHeartbeat({
        system: 'echo',
        timeline: { ...timeline, faults: [] },
        answers: [],
        runs: [],
        notifications: [],
      }),
    ).toBeUndefined();
  });

  it('says what the heartbeat went through, and names each transition and refused ping as a miss', () => {
    expect(
      heartbeatReport('echo', {
        pings: 90,
        journaled: 30,
        refused: [],
        transitions: [],
        notified: [],
      }),
    ).toEqual({
      note: 'heartbeat echo pinged throughout: 90 pings (30 journaled), 0 transition(s), 0 notification(s)',
      misses: [],
    });
    expect(
      heartbeatReport('echo', {
        pings: 90,
        journaled: 30,
        refused: ['production chaos-a: 500'],
        transitions: ['production: healthy -> unhealthy @t'],
        notified: ['production unhealthy'],
      }).misses,
    ).toEqual([
      "echo/production: healthy -> unhealthy @t (a heartbeat pinged throughout: Vigil's own fault)",
      'echo ping refused on production chaos-a: 500',
    ]);
  });
});
