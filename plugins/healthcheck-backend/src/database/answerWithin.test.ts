import { answerWithin } from './answerWithin';

describe('answerWithin', () => {
  it('answers what the work answers in time', async () => {
    await expect(
      answerWithin(Promise.resolve(42), 1_000, 'late'),
    ).resolves.toBe(42);
    await expect(
      answerWithin(Promise.reject(new Error('refused')), 1_000, 'late'),
    ).rejects.toThrow('refused');
  });

  it('rejects with the message once the deadline has passed', async () => {
    await expect(
      answerWithin(new Promise(() => {}), 10, 'no answer within 10 ms'),
    ).rejects.toThrow('no answer within 10 ms');
  });
});
