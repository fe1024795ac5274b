import { Router } from 'express';

/** Where the suite turns an instance's refusal on and off. @internal */
export const REFUSAL_CONTROL_PATH = '/chaos/notifications';

/** What the control answers: whether it refuses, and how many it refused since it began. @internal */
export interface RefusalState {
  refusing: boolean;
  refused: number;
}

/**
 * A root HTTP middleware of a chaos instance: while the suite says so,
 * every request to Backstage's notifications backend in the process is
 * answered 503, as its router answers while its backend shuts down. The
 * plugin reaches that backend through discovery over HTTP, so this is all
 * it sees of the fault. `POST <control>/refuse` turns it on (and zeroes
 * the count), `POST <control>/accept` off; both answer a {@link RefusalState}.
 * @internal
 */
export function notificationsRefusal(): Router {
  const state: RefusalState = { refusing: false, refused: 0 };
  const router = Router();
  router.post(`${REFUSAL_CONTROL_PATH}/refuse`, (_req, res) => {
    state.refusing = true;
    state.refused = 0;
    res.json(state);
  });
  router.post(`${REFUSAL_CONTROL_PATH}/accept`, (_req, res) => {
    state.refusing = false;
    res.json(state);
  });
  router.use('/api/notifications', (_req, res, next) => {
    if (!state.refusing) {
      next();
      return;
    }
    state.refused++;
    res.status(503).json({
      error: {
        name: 'ServiceUnavailableError',
        message: 'The chaos suite makes the notifications backend refuse',
      },
    });
  });
  return router;
}
